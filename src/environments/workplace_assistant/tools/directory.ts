// The company directory (NeMo Gym's CompanyDirectoryTool): a read-only list of addresses searched
// with a case-insensitive regex.
import { callLower } from '../python';
import { compilePythonRegex } from '../pyregex';
import { directoryAddresses } from '../tables';
import type { WorkplaceTool } from '../toolbox';

export const directoryTools: Record<string, WorkplaceTool> = {
  company_directory_find_email_address: {
    method: 'CompanyDirectoryTool.find_email_address',
    params: { name: '' },
    run(_ws, { name }) {
      if (name === '') return { output: 'Name not provided.' };
      const regex = compilePythonRegex(callLower(name));
      return { output: directoryAddresses().filter((address) => regex.test(address)) };
    },
  },
};
