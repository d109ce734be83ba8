// Loads the WebAssembly JavaScript sandbox (quickjs-emscripten, an optional peer) and the parser once.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { QuickJSWASMModule } from 'quickjs-emscripten';
import type { ParseProgram } from './cell-source';
import { CodeExecutionError } from './errors';

/** What a kernel needs to start: a fresh sandbox with its own memory, and the parser. */
export interface Sandbox {
  /**
   * A new QuickJS WebAssembly instance whose memory can never grow past `maxBytes` (its own
   * `WebAssembly.Memory`, so destroying the kernel gives all of it back).
   */
  newModule(maxBytes: number): Promise<{ module: QuickJSWASMModule; memory: SandboxMemory }>;
  /** acorn's `parse`. */
  parse: ParseProgram;
}

/** The part of a `WebAssembly.Memory` a kernel reads (the SDK compiles without the DOM library). */
export interface SandboxMemory {
  /** The memory's bytes; its length is the memory's size now. */
  readonly buffer: ArrayBuffer;
}

/** The WebAssembly API as far as this file uses it. */
const Wasm = (
  globalThis as unknown as {
    WebAssembly: {
      Memory: new (descriptor: { initial: number; maximum: number }) => SandboxMemory;
      compile(bytes: Uint8Array): Promise<object>;
    };
  }
).WebAssembly;

const PAGE = 65_536;
/** QuickJS's own start-up memory (the build's initial memory): 16 MiB. */
const INITIAL_BYTES = 16_777_216;

let loading: Promise<Sandbox> | undefined;

/**
 * The sandbox, loaded on first use: `quickjs-emscripten` (release build, synchronous variant) and
 * `acorn`. The WebAssembly code is compiled once per process and instantiated per kernel. Nothing
 * is fetched: the WebAssembly file ships inside the package.
 * @throws {@link CodeExecutionError} `CODE_SANDBOX_UNAVAILABLE` when `quickjs-emscripten` is not installed
 */
export function loadSandbox(): Promise<Sandbox> {
  loading ??= load().catch((error) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

async function load(): Promise<Sandbox> {
  const require = createRequire(import.meta.url);
  let quickjs: typeof import('quickjs-emscripten');
  try {
    quickjs = require('quickjs-emscripten') as typeof import('quickjs-emscripten');
  } catch (error) {
    throw new CodeExecutionError(
      'CODE_SANDBOX_UNAVAILABLE',
      'execute_code needs the optional dependency quickjs-emscripten (npm install quickjs-emscripten@0.32)',
      { cause: error instanceof Error ? error.message : String(error) },
    );
  }
  const acorn = require('acorn') as typeof import('acorn');
  const wasmModule = await compiledWasm(require);
  return {
    parse: acorn.parse as ParseProgram,
    async newModule(maxBytes) {
      const memory = new Wasm.Memory({
        initial: INITIAL_BYTES / PAGE,
        maximum: Math.max(INITIAL_BYTES / PAGE + 1, Math.ceil(maxBytes / PAGE)),
      });
      const variant = quickjs.newVariant(quickjs.RELEASE_SYNC, {
        wasmMemory: memory as never,
        ...(wasmModule ? { wasmModule: wasmModule as never } : {}),
      });
      return { module: await quickjs.newQuickJSWASMModuleFromVariant(variant), memory };
    },
  };
}

/** The sandbox's WebAssembly code compiled once, or undefined when its file cannot be found (each kernel then compiles it). */
async function compiledWasm(require: NodeJS.Require): Promise<object | undefined> {
  const path = wasmPath(require);
  return path ? Wasm.compile(readFileSync(path)) : undefined;
}

/** Where the WebAssembly file is: next to this package, or next to quickjs-emscripten when npm did not hoist it. */
function wasmPath(require: NodeJS.Require): string | undefined {
  const id = '@jitl/quickjs-wasmfile-release-sync/wasm';
  try {
    return require.resolve(id);
  } catch {
    try {
      return createRequire(require.resolve('quickjs-emscripten')).resolve(id);
    } catch {
      return undefined;
    }
  }
}
