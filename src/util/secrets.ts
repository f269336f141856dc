// Which setting names hold a secret given inline, for every place that shows or sends settings (`gym config
// show`, the exporters' params). The name must END in one, so `api_key_env` or `token_file` (where a secret is
// kept) and `tokenizer` are plain settings.
const SECRET_NAME = /(api[_-]?key|token|secret|password|passwd|credentials?|authorization)$/i;

export const isSecretName = (key: string): boolean => SECRET_NAME.test(key);
