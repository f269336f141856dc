// The company directory (NeMo Gym's CompanyDirectoryTool): a read-only list of addresses searched
// with a case-insensitive regex.
import { pyCompile } from '../../../python/regex';
import { callLower } from '../../../python/values';
import { directoryAddresses } from '../tables';
import { MODEL_PATTERN, type WorkplaceTool } from '../toolbox';

export const directoryTools: Record<string, WorkplaceTool> = {
  company_directory_find_email_address: {
    method: 'CompanyDirectoryTool.find_email_address',
    params: { name: '' },
    run(_ws, { name }) {
      if (name === '') return { output: 'Name not provided.' };
      // pandas' str.contains(pattern, case=False): re.search with IGNORECASE.
      const regex = pyCompile(callLower(name), 'i', MODEL_PATTERN);
      return { output: directoryAddresses().filter((address) => regex.search(address) !== null) };
    },
  },
};
