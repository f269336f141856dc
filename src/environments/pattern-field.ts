// A task-row field that holds a Python regex: refused at load, naming the field and Python's reason,
// when re.compile would refuse it, so a broken pattern never reaches a rollout.
import { z } from 'zod';
import { pyRegexError } from '../python/regex';

/** A string that must compile as a Python pattern under these flags (letters from "aimsux"). */
export function pyPattern(flagLetters = '') {
  return z.string().superRefine((pattern, ctx) => {
    const why = pyRegexError(pattern, flagLetters);
    if (why !== null) ctx.addIssue({ code: 'custom', message: `${JSON.stringify(pattern)} is not a valid regular expression (${why})` });
  });
}
