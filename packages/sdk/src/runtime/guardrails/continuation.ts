/**
 * Synthetic message sent after a reply that announced a next action but called no tool (English).
 * Not archived as a user message and not counted as a learning turn.
 * @public
 */
export const CONTINUATION_PROMPT =
  '[continue] Your last reply said what you would do next but called no tool, so nothing happened. Do it now by calling the tool. If the task is finished or you are blocked, give your final answer instead.';

/** Chinese form of {@link CONTINUATION_PROMPT}. @public */
export const CONTINUATION_PROMPT_ZH =
  '[继续] 你上一条回复说明了下一步要做什么，但没有调用任何工具，所以什么也没有发生。请现在调用工具去做；如果任务已完成或无法继续，请直接给出最终答复。';

const EN_VERBS =
  'check|look|search|query|fetch|get|read|open|list|run|call|use|try|retry|start|submit|create|verify|inspect|review|examine|investigate|find|scan|download|organi[sz]e|move|rename|delete|remove|update|refresh|compare|analy[sz]e|test|continue|proceed|pull|load|gather|collect|probe|confirm|add|set|fix|write|page|dig|go';
const EN_LEAD = new RegExp(
  String.raw`^(?:(?:ok(?:ay)?|alright|all right|now|next|first|then|so|great|good|sure|right)[,!.:]?\s+)*` +
    String.raw`(?:i['’]ll|i will|i shall|i am going to|i['’]m going to|i['’]m now going to|i need to|let me|let['’]s|we['’]ll|we will)` +
    String.raw`(?:\s+(?:(?:now|next|then|first|also|quickly|immediately|go ahead and|proceed to|start by|try to)\s+)*(?:${EN_VERBS})\b|\s*(?:…|\.{3}|:)\s*$)`,
  'i',
);

const ZH_VERBS =
  '查|检查|搜索|调用|执行|运行|获取|读取|查看|打开|尝试|提交|创建|确认|核对|整理|下载|列出|分析|看看|试试|处理|更新|刷新|扫描|比对|对比|验证|重试|启动|订阅|识别|定位|找|看|翻页|拉取|请求';
const ZH_OPENERS = '好的?|好了|那么|OK|ok|嗯|现在|接下来|下一步|然后|随后|首先|马上|稍后|之后|这就';
const ZH_LEAD = new RegExp(
  `^(?:(?:${ZH_OPENERS})[，,、:：\\s]*)*` +
    `(?:我们?(?:会|将|要|来|先|马上|这就|现在|接着|再|去|就|立即|立刻)+|让我们?|(?:接下来|下一步)[，,:：\\s]*)` +
    `\\s*(?:先|再|马上|立即|立刻|接着|去|来|开始|继续)*(?:${ZH_VERBS}|(?:…+|\\.{3}|[:：])\\s*$)`,
);

/**
 * Last sentence of `text`: the text after the last line break or sentence end (`。！？` anywhere,
 * `.!?` only before whitespace, so file names such as `movie.mkv` stay whole).
 */
function lastSentence(text: string): string {
  const parts = text
    .trim()
    .split(/\n+|(?<=[。！？])|(?<=[.!?])\s+/u)
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
  return parts.at(-1) ?? '';
}

/**
 * True when a reply ends by announcing a next action ("接下来我会检查…", "让我查看…", "Next I will…",
 * "Let me check…", "I'll now search…") but calls no tool — the model stopped before doing what it
 * said. Only the last sentence is read; a question never triggers, nor do
 * plain answers, numbers, file names or polite endings ("Let me know if…").
 *
 * @param text - the reply text
 * @param calledTools - whether the same reply called at least one tool (then never true)
 * @returns whether the driver should send a continuation prompt (the per-run limit of 2 is the caller's, see `LoopGuard.afterReply`)
 * @public
 */
export function needsContinuation(text: string, calledTools: boolean): boolean {
  if (calledTools) return false;
  const sentence = lastSentence(text).replace(/^[\s*_>#-]+/u, '');
  if (sentence.length === 0 || /[?？]\s*$/u.test(sentence)) return false;
  return EN_LEAD.test(sentence) || ZH_LEAD.test(sentence);
}

/**
 * The continuation prompt in the reply's language: Chinese when the reply contains CJK characters,
 * else English.
 *
 * @param text - the reply that announced an action
 * @returns {@link CONTINUATION_PROMPT_ZH} or {@link CONTINUATION_PROMPT}
 * @public
 */
export function continuationPromptFor(text: string): string {
  return /\p{Script=Han}/u.test(text) ? CONTINUATION_PROMPT_ZH : CONTINUATION_PROMPT;
}
