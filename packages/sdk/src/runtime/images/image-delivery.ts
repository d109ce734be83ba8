// Tool-result images: held in memory for the outbound requests of a run, never stored.
import { LRUCache } from 'lru-cache';
import type { ImagePart, ModelMessage, TextPart } from '../../models/types';
import { modelAcceptsImages } from './vision-models';

/**
 * How images in tool results reach the model.
 * @public
 */
export interface ToolImageOptions {
  /**
   * The host switch: false sends no tool image to any model (each gets a text note instead).
   * @defaultValue true
   */
  enabled?: boolean;
  /**
   * Per-model overrides of the built-in table (`VISION_MODEL_TABLE`), by exact model id: `true` sends
   * images to that model, `false` never does.
   * @defaultValue none
   */
  models?: Readonly<Record<string, boolean>>;
  /**
   * Whether a model in neither the overrides nor the table gets images.
   * @defaultValue true (the provider refusing them costs one text-only retry)
   */
  unknownModels?: boolean;
}

/** The note a stored tool result keeps instead of its images. */
export function notRetainedNote(source: string, images: readonly ImagePart[]): string {
  return `[${describe(source, images)}: image not retained — only this note is stored; call ${source} again to see the image]`;
}

function describe(source: string, images: readonly ImagePart[]): string {
  const types = images.map((i) => `${i.mediaType}, ${Math.floor((i.data.length * 3) / 4)} bytes`).join('; ');
  return `${images.length} image${images.length === 1 ? '' : 's'} from ${source} (${types})`;
}

const TEXT_ONLY_NOTE = (source: string, images: readonly ImagePart[], why: string) =>
  `[${describe(source, images)}: image not delivered — ${why}; do not describe what it shows]`;

interface Held {
  source: string;
  images: ImagePart[];
  note: string;
}

/**
 * Keeps the images of tool results in memory, per run and tool call, and puts them into the
 * outbound copy of each model request when the model accepts images. The stored conversation only
 * ever holds {@link notRetainedNote}; a run resumed in another process, or after the images were
 * dropped (64 MiB over all runs, least recently used first; all of a run's when it ends), sees that
 * note and cannot claim to have seen the image.
 */
export class ImageDelivery {
  readonly #accepts: boolean;
  readonly #why: string;
  readonly #held = new LRUCache<string, Held>({
    maxSize: 67_108_864,
    sizeCalculation: (h) =>
      Math.max(
        1,
        h.images.reduce((n, i) => n + i.data.length, 0),
      ),
  });
  readonly #runs = new Map<string, Set<string>>();
  readonly #refused = new Set<string>();

  /**
   * @param options - the host switch and overrides
   * @param model - the model id the runs use
   */
  constructor(options: ToolImageOptions, model: string) {
    const enabled = options.enabled ?? true;
    const known = modelAcceptsImages(model, options.models ?? {});
    this.#accepts = enabled && (known ?? options.unknownModels ?? true);
    this.#why = !enabled ? 'image delivery to the model is turned off' : `the model ${model} does not accept images`;
  }

  /** True when the model gets tool images (host switch and model table). */
  get accepts(): boolean {
    return this.#accepts;
  }

  /**
   * Takes the images out of a tool result about to be stored: they are held for outbound requests
   * and the stored text gets {@link notRetainedNote} instead.
   * @param runId - the run
   * @param message - the tool result, with image parts after its text
   * @returns the message to store (text only)
   */
  hold(runId: string, message: Extract<ModelMessage, { role: 'tool' }>): Extract<ModelMessage, { role: 'tool' }> {
    if (typeof message.content === 'string') return message;
    const images = message.content.filter((p): p is ImagePart => p.type === 'image');
    const text = message.content
      .filter((p): p is TextPart => p.type === 'text')
      .map((p) => p.text)
      .join('\n');
    if (images.length === 0) return { ...message, content: text };
    const note = notRetainedNote(message.name, images);
    const key = `${runId}\u0000${message.toolCallId}`;
    this.#held.set(key, { source: message.name, images, note });
    let keys = this.#runs.get(runId);
    if (!keys) this.#runs.set(runId, (keys = new Set()));
    keys.add(key);
    return { ...message, content: `${text}\n${note}` };
  }

  /**
   * The outbound copy of a request's messages: a tool result whose images are held gets them back
   * (with a note naming them) when the model accepts images and the provider has not refused them in
   * this drive; otherwise a note that the image was not delivered. Messages are not mutated.
   * @param runId - the run
   * @param messages - the request's messages
   */
  outbound(runId: string, messages: readonly ModelMessage[]): ModelMessage[] {
    if (!this.#runs.has(runId)) return [...messages];
    const send = this.#accepts && !this.#refused.has(runId);
    return messages.map((m) => {
      if (m.role !== 'tool' || typeof m.content !== 'string') return m;
      const held = this.#held.get(`${runId}\u0000${m.toolCallId}`);
      if (!held || !m.content.includes(held.note)) return m;
      if (!send)
        return {
          ...m,
          content: m.content.replace(
            held.note,
            TEXT_ONLY_NOTE(
              held.source,
              held.images,
              this.#refused.has(runId) ? 'the provider refused images' : this.#why,
            ),
          ),
        };
      const text = m.content.replace(held.note, `[${describe(held.source, held.images)}: attached after this text]`);
      return { ...m, content: [{ type: 'text', text }, ...held.images] };
    });
  }

  /**
   * The same messages without any image: each image part becomes a note (the text-only retry after
   * a provider refused images).
   * @param messages - outbound messages
   */
  textOnly(messages: readonly ModelMessage[]): ModelMessage[] {
    return messages.map((m) => {
      if ((m.role !== 'tool' && m.role !== 'user') || typeof m.content === 'string') return m;
      if (!m.content.some((p) => p.type === 'image')) return m;
      const images = m.content.filter((p): p is ImagePart => p.type === 'image');
      const source = m.role === 'tool' ? m.name : 'the user';
      const text = m.content
        .filter((p): p is TextPart => p.type === 'text')
        .map((p) => p.text)
        .join('\n');
      return {
        ...m,
        content: `${text}\n${TEXT_ONLY_NOTE(source, images, 'the provider refused images')}`,
      } as ModelMessage;
    });
  }

  /** The provider refused images in this run: the rest of the drive goes text-only. */
  refuse(runId: string): void {
    this.#refused.add(runId);
  }

  /** A new drive of the run begins: images may be tried again. */
  driveStart(runId: string): void {
    this.#refused.delete(runId);
  }

  /** Drops a run's images (it ended). */
  release(runId: string): void {
    for (const key of this.#runs.get(runId) ?? []) this.#held.delete(key);
    this.#runs.delete(runId);
    this.#refused.delete(runId);
  }
}

/** True when any message carries an image part. */
export function hasImages(messages: readonly ModelMessage[]): boolean {
  return messages.some(
    (m) =>
      (m.role === 'tool' || m.role === 'user') &&
      typeof m.content !== 'string' &&
      m.content.some((p) => p.type === 'image'),
  );
}
