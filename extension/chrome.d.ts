// The few chrome.* extension APIs the extension uses, declared here because @types/chrome is not a dependency.
declare namespace chrome {
  namespace runtime {
    interface MessageSender {
      tab?: tabs.Tab;
      frameId?: number;
      url?: string;
      origin?: string;
      documentId?: string;
    }
    function sendMessage(message: unknown): Promise<unknown>;
    const onMessage: {
      addListener(
        listener: (
          message: unknown,
          sender: MessageSender,
          sendResponse: (response?: unknown) => void,
        ) => void,
      ): void;
    };
  }
  namespace tabs {
    interface Tab {
      id?: number;
      url?: string;
    }
    const onRemoved: { addListener(listener: (tabId: number) => void): void };
  }
  namespace webNavigation {
    /** Fires for cross-document navigations only (same-document ones have their own events). */
    const onCommitted: {
      addListener(listener: (details: { tabId: number; frameId: number; documentId?: string }) => void): void;
    };
  }
}
