// Why a channel input was refused: one typed error per reason, handed back as the input's result (never thrown at
// the channel, which has nobody to catch it).
import { MediaAgentError } from '../../core/errors';

/**
 * A channel input the router refused:
 * - `CHANNEL_UNKNOWN_USER` — the channel user is linked to no person (`IdentityResolver.personOf` answered null);
 * - `CHANNEL_TAP_FORGED` — the button data did not verify (forged, altered, or from another chat);
 * - `CHANNEL_TAP_STALE` — the approval or choice no longer stands (payload changed, plan edited, expired, already
 *   decided, a choice already answered), or a confirmation code matches no open approval.
 * `details` carries `channelId`, `chatId`, and the approval id or run id when known.
 * @public
 */
export class ChannelInputRefusedError extends MediaAgentError<
  'CHANNEL_UNKNOWN_USER' | 'CHANNEL_TAP_FORGED' | 'CHANNEL_TAP_STALE'
> {
  /**
   * @param code - the reason's code
   * @param message - what the person is told
   * @param details - structured facts
   */
  constructor(
    code: 'CHANNEL_UNKNOWN_USER' | 'CHANNEL_TAP_FORGED' | 'CHANNEL_TAP_STALE',
    message: string,
    details: Record<string, unknown> = {},
  ) {
    super(code, message, details);
  }
}
