/**
 * `@media-agent/channel-telegram/testing`: a fake Telegram Bot API server over real HTTP, for tests and tries
 * without Telegram.
 *
 * @packageDocumentation
 */

export {
  FakeBotApi,
  type FakeBotApiCall,
  type FakeBotApiOptions,
  type FakeChat,
  type FakeFault,
  type FakeShownMessage,
  type FakeTapAnswer,
  type FakeUser,
  type FakeWebhookDelivery,
} from './testing/fake-bot-api';
export {
  apiError,
  BOT_API_ERRORS,
  BOT_API_LIMITS,
  callbackDataFits,
  readInlineKeyboard,
  textProblem,
} from './testing/bot-api-rules';
