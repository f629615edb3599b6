/** Phase 1: the dataset, generated into its folder or reused from there (bench/dataset). */
import { ensureDataset } from '../dataset/build';
import type { DatasetMeta } from '../dataset/meta';
import { defaultDatasetDir } from '../dataset/options';
import type { Settings } from './context';

export function datasetPhase(settings: Settings, log: (line: string) => void): DatasetMeta {
  const dataDir = settings.dataDir ?? defaultDatasetDir(settings.dataset);
  return ensureDataset(settings.dataset, dataDir, log);
}
