/**
 * An HTTP client for a run of `main()` in process (test/helpers/cli.ts) that reaches nothing:
 * undici's MockAgent with no answers and the network cut, keeping each request asked of it. For a
 * whole run that must send nothing, asserted without a server to count on.
 */
import { MockAgent } from 'undici';

export interface NoNetwork {
  /** for RunOptions.client: every client of the run sends through it */
  client: { dispatcher: MockAgent };
  /** each request the run tried to send, as "METHOD url" */
  requests(): string[];
}

export function noNetwork(): NoNetwork {
  const agent = new MockAgent({ enableCallHistory: true });
  agent.disableNetConnect();
  return {
    client: { dispatcher: agent },
    requests: () =>
      agent
        .getCallHistory()
        ?.calls()
        .map((call) => `${call.method} ${call.fullUrl}`) ?? [],
  };
}
