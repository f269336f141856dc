// A full disk (or an exhausted quota) is the user's to fix, not a crash: every writer in the run
// folder turns ENOSPC/EDQUOT into one GymError that names the path it could not write.
import { GymError } from '../errors';

export function isDiskFull(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

export function diskFullError(file: string, cause?: unknown): GymError {
  const why = (cause as NodeJS.ErrnoException | undefined)?.code ?? 'short write';
  return new GymError('DISK_FULL', `disk full at ${file} (${why}): free space or move the run folder, then resume the run`);
}

/** Rethrows a disk-full error as DISK_FULL naming the file; any other error unchanged. */
export function rethrowDiskFull(file: string, e: unknown): never {
  throw isDiskFull(e) ? diskFullError(file, e) : e;
}
