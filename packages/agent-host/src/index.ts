/** @flotilla/agent-host: what a domain agent is defined with (`defineDomainAgent`). */
export {};
