// workerd's test-only module (not in production Workers): see evict.ts.
declare module "workerd:unsafe" {
  const unsafe: {
    evict(stub: DurableObjectStub, options?: { webSockets?: "close" | "hibernate" }): Promise<void>;
  };
  export default unsafe;
}
