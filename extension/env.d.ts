// The chrome.* extension APIs, typed by @types/chrome (referenced here so only the extension build needs them).
/// <reference types="chrome" />
