// Exporters by name: each configured backend becomes one Exporter; adding a backend is one row here.
import type { ExporterName, ExportersConfig } from './config';
import { mlflowExporter } from './mlflow';
import type { Exporter } from './types';
import { wandbExporter } from './wandb';

const EXPORTERS: { [N in ExporterName]: (config: ExportersConfig) => Exporter | undefined } = {
  mlflow: (c) => (c.mlflow ? mlflowExporter(c.mlflow) : undefined),
  wandb: (c) => (c.wandb ? wandbExporter(c.wandb) : undefined),
};

export const EXPORTER_NAMES = Object.keys(EXPORTERS) as ExporterName[];

/** The exporters the config sets up, optionally only those named. */
export function configuredExporters(config: ExportersConfig, only?: readonly ExporterName[]): Exporter[] {
  return EXPORTER_NAMES.filter((n) => !only || only.includes(n)).flatMap((n) => EXPORTERS[n](config) ?? []);
}
