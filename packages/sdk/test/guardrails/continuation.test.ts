import { describe, expect, it } from 'vitest';
import {
  CONTINUATION_PROMPT,
  CONTINUATION_PROMPT_ZH,
  continuationPromptFor,
  needsContinuation,
} from '../../src/runtime/guardrails/index';

describe('continuation rule (seed 000: announced next action without a tool call)', () => {
  it('replies ending by announcing a next action trigger, in Chinese and English', () => {
    for (const text of [
      '接下来我会检查下载队列。',
      '我已经找到了这部电影。接下来我会…',
      '好的，让我查看一下整理记录：',
      '下一步：搜索字幕。',
      '现在我来获取订阅列表',
      'Next I will check the download queue.',
      'I found 3 candidates. Let me check which one is already in the library:',
      "I'll now search for the subtitles…",
      'Okay, now I am going to fetch the organize history.',
      "Let's look at the downloader status.",
    ]) {
      expect(needsContinuation(text, false), text).toBe(true);
    }
  });

  it('never triggers when tools were called', () => {
    expect(needsContinuation('Let me check the queue.', true)).toBe(false);
    expect(needsContinuation('接下来我会检查下载队列。', true)).toBe(false);
  });

  it('normal short answers, numbers, file names, questions and polite endings never trigger', () => {
    for (const text of [
      '',
      '42',
      '3.5',
      'Dune.Part.Two.2024.2160p.mkv',
      '/media/movies/Dune (2021)/Dune.mkv',
      '已完成。',
      '这部电影已经在媒体库中。',
      'Done. The download finished at 21:04.',
      'Let me know if you need anything else.',
      "I'll be happy to help with anything else.",
      'Shall I check the queue?',
      '要我继续检查下载队列吗？',
      '如果还有问题，我会继续帮你。',
      '我找到了这部电影。',
      '我看了一下，没有问题。',
      'I will.',
      'Next steps: none, everything is organized.',
    ]) {
      expect(needsContinuation(text, false), text).toBe(false);
    }
  });

  it('the prompt follows the reply language', () => {
    expect(continuationPromptFor('接下来我会检查。')).toBe(CONTINUATION_PROMPT_ZH);
    expect(continuationPromptFor('Let me check.')).toBe(CONTINUATION_PROMPT);
  });
});
