// Whether the model a request is for gets images: the provider's setting, else the model support table.
import { modelAcceptsImages } from '../vision-models';

/**
 * Whether images go to `model`: the provider's `supportsImages` when set, else the model's row in
 * `VISION_MODEL_TABLE`, else true (an unknown model gets images; the runtime's tool-image delivery resends
 * text-only when a server refuses them). Where this is false, image parts become a text note. This holds for
 * whichever provider answers a turn: a conversation whose images were admitted for a vision model reaches a
 * text-only fallback model (e.g. `deepseek-chat`) as notes, not as a 400. Pure.
 *
 * @param model - the model id the request names
 * @param supportsImages - the provider's `supportsImages` option, if set
 * @returns true when image parts are sent
 * @internal
 */
export function targetAcceptsImages(model: string, supportsImages: boolean | undefined): boolean {
  return supportsImages ?? modelAcceptsImages(model) ?? true;
}
