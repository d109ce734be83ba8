// Which models accept images: the table lives with the providers (src/models/vision-models.ts), which apply it
// to whichever model answers a turn; the runtime's tool-image delivery uses the same table.
export { VISION_MODEL_TABLE, modelAcceptsImages } from '../../models/vision-models';
