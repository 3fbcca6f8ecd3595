// Preloaded into Portkey's gateway by the peer bench: global fetch answers with a Response whose headers can be
// changed, which the gateway's Node build needs (it appends its own headers to the provider's response; undici's
// are immutable: Portkey-AI/gateway#1389). Changes nothing else.
const fetchWithImmutableHeaders = globalThis.fetch;
globalThis.fetch = async (...args) => {
  const response = await fetchWithImmutableHeaders(...args);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers: new Headers(response.headers) });
};
