/**
 * The workload's tool input schemas in zod (what LangGraph, Mastra, the Vercel AI SDK and the OpenAI
 * Agents SDK take), the same fields as media-agent's TypeBox schemas in `_add-a-film-ours.ts`.
 */
import { z } from 'zod';
import type { FilmTool } from '../_add-a-film';

/** Each tool's input schema. */
export const FILM_ZOD: Readonly<Record<FilmTool, z.ZodObject>> = {
  'catalog.lookup': z.object({ query: z.string(), limit: z.number().int().optional() }),
  'release.search': z.object({ mediaSource: z.string(), mediaId: z.string(), limit: z.number().int().optional() }),
  'download.plan': z.object({ mediaSource: z.string(), mediaId: z.string(), releaseId: z.string() }),
  'download.submit': z.object({ planId: z.string() }),
  'download.status': z.object({ downloadId: z.string() }),
};

/** The tools in the order the conversation calls them. */
export const FILM_TOOL_IDS = Object.keys(FILM_ZOD) as FilmTool[];
