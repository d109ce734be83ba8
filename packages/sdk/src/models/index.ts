// Public exports of the model layer (ModelProvider port, providers, token counting, cost).
export {};
