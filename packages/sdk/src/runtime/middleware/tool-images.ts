// Images in tool results as run middleware: held out of the stored conversation, sent in the outbound copy.
import type { ImageDelivery } from '../images/image-delivery';
import type { RunMiddleware } from './run-middleware';

/**
 * `tool_images`: a tool result's image parts are taken out before it is stored (the stored text
 * says "image not retained") and put back into the outbound copy of each later model request when
 * the model accepts images (otherwise a note says the image was not delivered). A run's images are
 * dropped when it ends.
 * @param images - the host's image delivery
 * @internal
 */
export function toolImagesMiddleware(images: ImageDelivery): RunMiddleware {
  return {
    name: 'tool_images',
    onDriveStart(ctx) {
      images.driveStart(ctx.run.id);
    },
    beforeModelRequest(ctx) {
      ctx.messages = images.outbound(ctx.run.id, ctx.messages);
    },
    afterToolCall(ctx) {
      if (typeof ctx.result.content !== 'string') ctx.result = images.hold(ctx.run.id, ctx.result);
    },
    onRunEnd(ctx) {
      if (ctx.terminal) images.release(ctx.run.id);
    },
  };
}
