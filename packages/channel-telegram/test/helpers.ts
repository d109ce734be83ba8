import type { ChannelInput } from '@media-agent/sdk';
import { TelegramChannel, type TelegramChannelOptions } from '@media-agent/channel-telegram';
import { FakeBotApi, type FakeChat, type FakeUser } from '@media-agent/channel-telegram/testing';

export const ann: FakeUser = { id: 1001, first_name: 'Ann', username: 'ann' };
export const bob: FakeUser = { id: 1002, first_name: 'Bob' };
export const annChat: FakeChat = { id: ann.id, type: 'private' };
export const family: FakeChat = { id: -5001, type: 'group', title: 'Family' };

/** A started fake Bot API and a channel on it (not started); `close()` stops both. */
export async function setup(options: Partial<TelegramChannelOptions> = {}) {
  const fake = new FakeBotApi();
  const apiRoot = await fake.start();
  const channel = new TelegramChannel({
    token: fake.token,
    apiRoot,
    id: 'telegram:test',
    pollingTimeoutSeconds: 1,
    ...options,
  });
  const inputs: ChannelInput[] = [];
  return {
    fake,
    channel,
    inputs,
    /** Starts the channel, recording every input. */
    start: (onInput?: (input: ChannelInput) => Promise<void>) =>
      channel.start(async (input) => {
        inputs.push(input);
        await onInput?.(input);
      }),
    close: async () => {
      await channel.stop();
      await fake.close();
    },
  };
}

/** The error a promise rejects with (fails the test when it resolves). */
export async function rejection(
  promise: Promise<unknown>,
): Promise<Error & { code?: string; details?: Record<string, unknown> }> {
  try {
    await promise;
  } catch (error) {
    return error as Error & { code?: string; details?: Record<string, unknown> };
  }
  throw new Error('expected a rejection');
}
