// A module imported on first use and kept: each `import()` of a loaded module still costs a trip through the
// loader (under tsx, a message to its hooks thread), which a request path that asks per call pays every time.
export function lazyImport<M>(load: () => Promise<M>): () => Promise<M> {
  let module: Promise<M> | undefined;
  return () => {
    module ??= load().catch((e: unknown) => {
      module = undefined;
      throw e;
    });
    return module;
  };
}
