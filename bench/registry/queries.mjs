// The searches the registry bench times: what people and agents type, from very common words to a miss.

/** [query, kind]. */
export const QUERIES = [
  ["get", "very common word"],
  ["search", "very common word"],
  ["order", "common word"],
  ["flight", "word"],
  ["invoice", "word"],
  ["kayak", "rare word"],
  ["sommelier", "rare word"],
  ["weather forecast", "two words"],
  ["add cart", "two words"],
  ["book hotel", "two words"],
  ["reserv", "prefix"],
  ["calc", "prefix"],
  ["subscr", "prefix"],
  ["xylophone", "no match"],
];
