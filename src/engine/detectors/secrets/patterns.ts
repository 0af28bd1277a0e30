// The provider pattern table of secrets.native: one row per token format (prefix, alphabet,
// length), written from the vendors' documented formats. Data only; native.ts runs it. Hot path:
// no I/O here. Every regex anchors on a literal marker, uses bounded repetition and has no nested
// or overlapping quantifiers, so each runs in linear time; a row runs only when one of its
// `markers` occurs in the text.

export const SECRET_ENTITIES = [
  'SECRET.MODEL_API_KEY',
  'SECRET.CLOUD_ACCESS_KEY',
  'SECRET.CODE_HOST_TOKEN',
  'SECRET.CHAT_TOOL_TOKEN',
  'SECRET.SEARCH_KEY',
  'SECRET.PAYMENT_KEY',
  'SECRET.GATEWAY_TOKEN',
  'SECRET.PRIVATE_KEY',
  'SECRET.JWT',
  'SECRET.CONNECTION_STRING',
  'SECRET.GENERIC',
] as const;
export type SecretEntity = (typeof SECRET_ENTITIES)[number];

/**
 * Validators a row can ask for (implemented in native.ts):
 * - `keyMaterial`: placeholder rejection + entropy of the secret part;
 * - `placeholder`: placeholder rejection only (fixed-alphabet formats where entropy says little);
 * - `jwt`: the header segment decodes to JSON naming `alg`;
 * - `pem`: a PEM block with a real base64 body; the span grows to the END line;
 * - `urlCredentials`: the password part of `scheme://user:password@host` is not a placeholder;
 * - `basicAuth`: the value decodes to `user:password`;
 * - `discordBot`: the first segment is base64 of a numeric Discord snowflake id;
 * - `tail`: placeholder rejection + entropy of the last `-` segment only (numeric ids before it);
 * - `none`: the format itself is specific enough.
 */
export type PatternValidator =
  | 'keyMaterial'
  | 'placeholder'
  | 'jwt'
  | 'pem'
  | 'urlCredentials'
  | 'basicAuth'
  | 'discordBot'
  | 'tail'
  | 'none';

export interface SecretPattern {
  name: string;
  entity: SecretEntity;
  provider: string;
  /** Lower-case literals; the regex runs only when one occurs in the text (case-insensitively). */
  markers: readonly string[];
  /** Global regex. The named group `secret`, when present, is the reported span; else the match. */
  regex: RegExp;
  score: number;
  validate: PatternValidator;
  /** Lowers the entropy bar for formats whose alphabet is small (hex, base32). */
  entropyBonus?: number;
  /**
   * The markers are the token's own prefix. A keyword-assigned value that starts with one but was
   * rejected by this row (wrong length, placeholder) is a look-alike, not a generic secret.
   */
  prefix: boolean;
}

// Token boundaries: a token must not be glued to other word characters, which is what stops
// `task_test_…` from matching `sk_test_…` and `…ASIAASACK…` from matching an AWS key id. The left
// side also refuses `.` and `-`, so a run like `eyJa-eyJa-…` offers one start, not thousands.
const L = '(?<![A-Za-z0-9_.-])';
const R = '(?![A-Za-z0-9_])';

function rx(source: string, flags = 'g'): RegExp {
  return new RegExp(source, flags);
}

interface Row {
  name: string;
  entity: SecretEntity;
  provider: string;
  markers: string[];
  source: string;
  score: number;
  validate?: PatternValidator;
  entropyBonus?: number;
  flags?: string;
  prefix?: boolean;
}

/** A token that starts with a literal prefix and is bounded on both sides. */
function prefixed(
  name: string,
  entity: SecretEntity,
  provider: string,
  prefix: string,
  body: string,
  score = 0.9,
  extra: Partial<Row> = {},
): Row {
  const literal = prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return {
    name,
    entity,
    provider,
    markers: [prefix.toLowerCase()],
    source: `${L}(?<secret>${literal}${body})${R}`,
    score,
    validate: 'keyMaterial',
    prefix: prefix.length >= 3,
    ...extra,
  };
}

const MODEL: SecretEntity = 'SECRET.MODEL_API_KEY';
const CLOUD: SecretEntity = 'SECRET.CLOUD_ACCESS_KEY';
const CODE: SecretEntity = 'SECRET.CODE_HOST_TOKEN';
const CHAT: SecretEntity = 'SECRET.CHAT_TOOL_TOKEN';
const SEARCH: SecretEntity = 'SECRET.SEARCH_KEY';
const PAYMENT: SecretEntity = 'SECRET.PAYMENT_KEY';
const GENERIC: SecretEntity = 'SECRET.GENERIC';

const B62 = 'A-Za-z0-9';
const B64URL = 'A-Za-z0-9_-';

const ROWS: Row[] = [
  // ---- Parapet's own tokens -------------------------------------------------------------
  {
    name: 'parapet-token',
    prefix: true,
    entity: 'SECRET.GATEWAY_TOKEN',
    provider: 'Parapet',
    markers: ['ppt_op_', 'ppt_tr_', 'ppt_ag_'],
    source: `${L}(?<secret>ppt_(?:op|tr|ag)_[${B64URL}]{43})(?![A-Za-z0-9_-])`,
    score: 0.98,
    validate: 'placeholder',
  },

  // ---- Model providers -----------------------------------------------------------------
  {
    // OpenAI project/service/admin keys carry the base64 of "OpenAI" (T3BlbkFJ) in the middle.
    name: 'openai-key-marked',
    entity: MODEL,
    provider: 'OpenAI',
    markers: ['t3blbkfj'],
    source: `${L}(?<secret>sk-(?:(?:proj|svcacct|admin|None)-)?[${B64URL}]{20,160}T3BlbkFJ[${B64URL}]{20,160})${R}`,
    score: 0.97,
    validate: 'placeholder',
    flags: 'g',
  },
  prefixed('openai-project-key', MODEL, 'OpenAI', 'sk-proj-', `[${B64URL}]{40,200}`, 0.92),
  prefixed('openai-service-account-key', MODEL, 'OpenAI', 'sk-svcacct-', `[${B64URL}]{40,200}`, 0.92),
  prefixed('openai-admin-key', MODEL, 'OpenAI', 'sk-admin-', `[${B64URL}]{40,200}`, 0.92),
  // Anthropic keys: 93 characters then "AA" (length as in gitleaks' rule); other lengths and
  // tails are look-alikes left to the generic rules.
  prefixed('anthropic-api-key', MODEL, 'Anthropic', 'sk-ant-api', `\\d{2}-[${B64URL}]{93}AA`, 0.95),
  prefixed('anthropic-admin-key', MODEL, 'Anthropic', 'sk-ant-admin', `\\d{2}-[${B64URL}]{93}AA`, 0.95),
  prefixed('anthropic-other-key', MODEL, 'Anthropic', 'sk-ant-', `(?:sid|oat|ort)\\d{2}-[${B64URL}]{40,200}`, 0.9),
  prefixed('openrouter-key', MODEL, 'OpenRouter', 'sk-or-v1-', '[a-f0-9]{64}', 0.95, { entropyBonus: 0.3 }),
  // Legacy OpenAI, DeepSeek, Moonshot, Stability, DashScope and other `sk-` keys.
  prefixed('sk-dash-model-key', MODEL, 'OpenAI-compatible', 'sk-', `[${B62}]{32,64}`, 0.9),
  prefixed('groq-key', MODEL, 'Groq', 'gsk_', `[${B62}]{52}`, 0.95),
  prefixed('perplexity-key', MODEL, 'Perplexity', 'pplx-', `[${B62}]{40,56}`, 0.92),
  prefixed('xai-key', MODEL, 'xAI', 'xai-', `[${B62}]{70,90}`, 0.92),
  prefixed('huggingface-token', MODEL, 'Hugging Face', 'hf_', `[${B62}]{34,40}`, 0.92),
  prefixed('huggingface-org-token', MODEL, 'Hugging Face', 'api_org_', `[${B62}]{34}`, 0.9),
  prefixed('replicate-token', MODEL, 'Replicate', 'r8_', `[${B62}]{37}`, 0.92),
  prefixed('nvidia-nim-key', MODEL, 'NVIDIA', 'nvapi-', `[${B64URL}]{60,70}`, 0.92),
  prefixed('fireworks-key', MODEL, 'Fireworks', 'fw_', `[${B62}]{24}`, 0.8),
  prefixed('cerebras-key', MODEL, 'Cerebras', 'csk-', `[a-z0-9]{48}`, 0.88),
  prefixed('langsmith-key', MODEL, 'LangSmith', 'lsv2_', `(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}`, 0.92, { entropyBonus: 0.3 }),
  prefixed('pinecone-key', MODEL, 'Pinecone', 'pcsk_', `[${B62}_]{50,90}`, 0.9),
  prefixed('anyscale-key', MODEL, 'Anyscale', 'esecret_', `[${B62}]{20,60}`, 0.85),
  prefixed('elevenlabs-key', MODEL, 'ElevenLabs', 'sk_', '[a-f0-9]{48}', 0.85, { entropyBonus: 0.3 }),
  prefixed('jina-key', MODEL, 'Jina AI', 'jina_', `[${B64URL}]{40,80}`, 0.85),
  prefixed('langfuse-secret-key', MODEL, 'Langfuse', 'sk-lf-', '[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}', 0.9),
  prefixed('bedrock-long-term-key', MODEL, 'Amazon Bedrock', 'ABSKQmVkcm9ja0FQSUtleS', `[A-Za-z0-9+/]{40,400}={0,2}`, 0.95),
  {
    name: 'bedrock-short-term-key',
    prefix: true,
    entity: MODEL,
    provider: 'Amazon Bedrock',
    markers: ['bedrock-api-key-'],
    // The body is base64 of a presigned URL that starts with "bedrock.amazonaws.com".
    source: `${L}(?<secret>bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/=%]{0,3000})`,
    score: 0.93,
    validate: 'none',
  },

  // ---- Cloud providers -----------------------------------------------------------------
  {
    // AWS access key ids are 20 characters of base32 behind a four-letter resource prefix.
    name: 'aws-access-key-id',
    prefix: true,
    entity: CLOUD,
    provider: 'AWS',
    markers: ['akia', 'asia', 'abia', 'acca', 'a3t', 'agpa', 'aida', 'aroa', 'aipa', 'anpa', 'anva', 'apka'],
    source: `${L}(?<secret>(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA|A3T[A-Z0-9])[A-Z2-7]{16})${R}`,
    score: 0.93,
    validate: 'keyMaterial',
    entropyBonus: 0.6,
    flags: 'g',
  },
  {
    name: 'aws-secret-access-key',
    entity: CLOUD,
    provider: 'AWS',
    markers: ['aws_secret', 'aws-secret', 'awssecret', 'secret_access_key', 'secretaccesskey'],
    source: `(?:aws|AWS|Aws)?_?(?:secret|SECRET|Secret)_?(?:access|ACCESS|Access)_?(?:key|KEY|Key)["']?\\s{0,4}(?:=|:|=>)\\s{0,4}["']?(?<secret>[A-Za-z0-9/+]{40})${R}`,
    score: 0.93,
    validate: 'keyMaterial',
  },
  prefixed('gcp-api-key', CLOUD, 'Google Cloud', 'AIza', `[${B64URL}]{35}`, 0.9, { validate: 'keyMaterial' }),
  prefixed('google-oauth-client-secret', CLOUD, 'Google Cloud', 'GOCSPX-', `[${B64URL}]{28}`, 0.93),
  prefixed('firebase-cloud-messaging-key', CLOUD, 'Firebase', 'AAAA', `[${B64URL}]{7}:APA91b[${B64URL}]{120,160}`, 0.93),
  prefixed('google-oauth-access-token', CLOUD, 'Google Cloud', 'ya29.', `[${B64URL}]{30,2000}`, 0.85),
  {
    name: 'gcp-service-account-file',
    entity: CLOUD,
    provider: 'Google Cloud',
    markers: ['service_account'],
    source: `"type"\\s{0,4}:\\s{0,4}"(?<secret>service_account)(?=")`,
    score: 0.55,
    validate: 'none',
  },
  {
    // Azure AD client secrets: three characters, a digit, `Q~`, then 31-34 characters.
    name: 'azure-ad-client-secret',
    entity: CLOUD,
    provider: 'Microsoft Azure',
    markers: ['q~'],
    source: `(?<![A-Za-z0-9_~.-])(?<secret>[A-Za-z0-9_~.-]{3}\\dQ~[A-Za-z0-9_~.-]{31,34})(?![A-Za-z0-9_~.-])`,
    score: 0.9,
    validate: 'keyMaterial',
  },
  {
    name: 'azure-storage-account-key',
    entity: CLOUD,
    provider: 'Microsoft Azure',
    markers: ['accountkey'],
    source: `AccountKey\\s{0,2}=\\s{0,2}(?<secret>[A-Za-z0-9+/]{86}==)`,
    score: 0.95,
    validate: 'keyMaterial',
    flags: 'gi',
  },
  {
    name: 'azure-sas-signature',
    entity: CLOUD,
    provider: 'Microsoft Azure',
    markers: ['sig='],
    source: `[?&]sv=\\d{4}-\\d{2}-\\d{2}&[^\\s"'<>]{0,300}?sig=(?<secret>[A-Za-z0-9%+/]{40,120}={0,2})`,
    score: 0.85,
    validate: 'keyMaterial',
  },
  prefixed('alibaba-access-key-id', CLOUD, 'Alibaba Cloud', 'LTAI', `[${B62}]{12,20}`, 0.92),
  prefixed('tencent-secret-id', CLOUD, 'Tencent Cloud', 'AKID', `[${B62}]{32}`, 0.88),
  prefixed('yandex-static-key', CLOUD, 'Yandex Cloud', 'YC', `[${B64URL}]{38}`, 0.8),
  prefixed('yandex-api-key', CLOUD, 'Yandex Cloud', 'AQVN', `[${B64URL}]{35,38}`, 0.92),
  prefixed('yandex-iam-token', CLOUD, 'Yandex Cloud', 't1.', `[A-Z0-9a-z_-]{1,20}={0,2}\\.[A-Z0-9a-z_-]{86}={0,2}`, 0.92),
  prefixed('digitalocean-pat', CLOUD, 'DigitalOcean', 'dop_v1_', '[a-f0-9]{64}', 0.96, { entropyBonus: 0.3 }),
  prefixed('digitalocean-oauth-token', CLOUD, 'DigitalOcean', 'doo_v1_', '[a-f0-9]{64}', 0.96, { entropyBonus: 0.3 }),
  prefixed('digitalocean-refresh-token', CLOUD, 'DigitalOcean', 'dor_v1_', '[a-f0-9]{64}', 0.96, { entropyBonus: 0.3 }),
  prefixed('heroku-api-key-v2', CLOUD, 'Heroku', 'HRKU-', `[${B64URL}]{40,70}`, 0.93),
  prefixed('flyio-token', CLOUD, 'Fly.io', 'fo1_', `[${B64URL}]{43}`, 0.93),
  {
    name: 'flyio-macaroon',
    prefix: true,
    entity: CLOUD,
    provider: 'Fly.io',
    markers: ['fm1r_', 'fm1a_', 'fm2_'],
    source: `${L}(?<secret>fm(?:1[ar]|2)_[A-Za-z0-9+/]{80,3000}={0,3})`,
    score: 0.9,
    validate: 'keyMaterial',
  },
  prefixed('cloudflare-origin-ca-key', CLOUD, 'Cloudflare', 'v1.0-', '[a-f0-9]{24}-[a-f0-9]{146}', 0.93, { entropyBonus: 0.3 }),
  prefixed('databricks-token', CLOUD, 'Databricks', 'dapi', '[a-f0-9]{32}(?:-\\d)?', 0.9, { entropyBonus: 0.3 }),
  prefixed('scaleway-key', CLOUD, 'Scaleway', 'SCW', '[A-Z0-9]{17}', 0.6, { entropyBonus: 0.4 }),
  prefixed('supabase-token', CLOUD, 'Supabase', 'sbp_', '[a-f0-9]{40}', 0.9, { entropyBonus: 0.3 }),
  prefixed('planetscale-token', CLOUD, 'PlanetScale', 'pscale_tkn_', `[A-Za-z0-9_.=-]{32,64}`, 0.92),
  prefixed('planetscale-password', CLOUD, 'PlanetScale', 'pscale_pw_', `[A-Za-z0-9_.=-]{32,64}`, 0.92),
  prefixed('planetscale-oauth', CLOUD, 'PlanetScale', 'pscale_oauth_', `[A-Za-z0-9_.=-]{32,64}`, 0.92),
  prefixed('terraform-cloud-token', CLOUD, 'HashiCorp', '', `[a-z0-9]{14}\\.atlasv1\\.[a-z0-9_=-]{60,70}`, 0.93, {
    markers: ['.atlasv1.'],
    flags: 'gi',
  }),
  prefixed('vault-service-token', CLOUD, 'HashiCorp Vault', 'hvs.', `[${B64URL}]{90,200}`, 0.93),
  prefixed('vault-batch-token', CLOUD, 'HashiCorp Vault', 'hvb.', `[${B64URL}]{120,400}`, 0.93),
  {
    // Legacy Vault service tokens are short; demand mixed case and digits to avoid `s.someMethod`.
    name: 'vault-legacy-token',
    entity: CLOUD,
    provider: 'HashiCorp Vault',
    markers: ['s.'],
    source: `(?:token|TOKEN|Token|vault|VAULT)["']?\\s{0,3}[:=]\\s{0,3}["']?(?<secret>s\\.(?=[A-Za-z0-9]{0,23}[0-9])(?=[A-Za-z0-9]{0,23}[a-z])(?=[A-Za-z0-9]{0,23}[A-Z])[A-Za-z0-9]{24})${R}`,
    score: 0.85,
    validate: 'keyMaterial',
  },
  prefixed('openshift-token', CLOUD, 'OpenShift', 'sha256~', `[${B64URL}]{43}`, 0.9),

  // ---- Code hosts and package registries ----------------------------------------------
  {
    name: 'github-token',
    prefix: true,
    entity: CODE,
    provider: 'GitHub',
    markers: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'],
    source: `${L}(?<secret>gh[pousr]_[${B62}]{36,255})${R}`,
    score: 0.95,
    validate: 'keyMaterial',
  },
  prefixed('github-fine-grained-pat', CODE, 'GitHub', 'github_pat_', `[${B62}_]{80,255}`, 0.96),
  // App installation tokens in the newer form: the app id, then a JWT.
  prefixed('github-app-installation-jwt', CODE, 'GitHub', 'ghs_', `\\d{1,12}_eyJ[${B64URL}]{10,2000}\\.eyJ[${B64URL}]{10,4000}\\.[${B64URL}]{20,1000}`, 0.95, {
    validate: 'placeholder',
  }),
  {
    name: 'gitlab-token',
    prefix: true,
    entity: CODE,
    provider: 'GitLab',
    markers: ['glpat-', 'glptt-', 'gldt-', 'glrt-', 'glrtr-', 'glcbt-', 'glft-', 'glimt-', 'glagent-', 'gloas-', 'glsoat-', 'glffct-', 'glwt-'],
    source: `${L}(?<secret>gl(?:pat|ptt|dt|rt|rtr|cbt|ft|imt|agent|oas|soat|ffct|wt)-[A-Za-z0-9_.-]{20,200})(?![A-Za-z0-9_.-])`,
    score: 0.93,
    validate: 'keyMaterial',
  },
  prefixed('gitlab-runner-registration-token', CODE, 'GitLab', 'GR1348941', `[${B64URL}]{20}`, 0.9),
  prefixed('gitlab-session-cookie', CODE, 'GitLab', '_gitlab_session=', '[0-9a-z]{32}', 0.9),
  prefixed('bitbucket-app-password', CODE, 'Bitbucket', 'ATBB', `[A-Za-z0-9_=.-]{28,40}`, 0.9),
  prefixed('bitbucket-access-token', CODE, 'Bitbucket', 'ATCTT3xFfGN0', `[A-Za-z0-9_=-]{150,250}`, 0.93),
  prefixed('sourcegraph-token', CODE, 'Sourcegraph', 'sgp_', '(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40}', 0.9, { entropyBonus: 0.3 }),
  prefixed('npm-token', CODE, 'npm', 'npm_', `[${B62}]{36}`, 0.93),
  prefixed('pypi-token', CODE, 'PyPI', 'pypi-AgEIcHlwaS5vcmc', `[${B64URL}]{50,1000}`, 0.96),
  prefixed('rubygems-token', CODE, 'RubyGems', 'rubygems_', '[a-f0-9]{48}', 0.95, { entropyBonus: 0.3 }),
  prefixed('clojars-token', CODE, 'Clojars', 'CLOJARS_', '[a-z0-9]{60}', 0.93, { flags: 'gi' }),
  prefixed('nuget-key', CODE, 'NuGet', 'oy2', '[a-z0-9]{43}', 0.75),
  prefixed('dockerhub-pat', CODE, 'Docker Hub', 'dckr_pat_', `[${B64URL}]{27}`, 0.95),
  prefixed('dockerhub-oat', CODE, 'Docker Hub', 'dckr_oat_', `[${B64URL}]{32}`, 0.95),
  prefixed('artifactory-api-key', CODE, 'JFrog', 'AKCp', `[${B62}]{69}`, 0.9),
  prefixed('artifactory-reference-token', CODE, 'JFrog', 'cmVmdG', `[${B62}]{58}`, 0.88),
  prefixed('crates-io-token', CODE, 'crates.io', 'cio', `[${B62}]{32}`, 0.7),

  // ---- Chat tools ------------------------------------------------------------------------
  prefixed('slack-bot-token', CHAT, 'Slack', 'xoxb-', `\\d{8,14}-(?:\\d{8,14}-)?[${B62}]{18,34}`, 0.95),
  {
    name: 'slack-user-token',
    prefix: true,
    entity: CHAT,
    provider: 'Slack',
    markers: ['xoxp-', 'xoxa-', 'xoxs-', 'xoxo-', 'xoxr-', 'xoxe-'],
    source: `${L}(?<secret>xox[paosre]-(?:\\d-)?\\d{8,14}-\\d{8,14}-\\d{8,14}-[${B62}]{8,64})${R}`,
    score: 0.95,
    // Workspace and user ids are plain numbers (often `1111…` in docs); the random tail decides.
    validate: 'tail',
  },
  {
    // Legacy tokens made of numeric ids only (`xoxb-<team>-<user>`), as older docs and configs show.
    name: 'slack-legacy-token',
    prefix: true,
    entity: CHAT,
    provider: 'Slack',
    markers: ['xoxb-', 'xoxp-', 'xoxa-', 'xoxs-', 'xoxo-', 'xoxr-'],
    source: `${L}(?<secret>xox[bpaosr]-\\d{8,14}-\\d{8,14}(?:-\\d{8,14}){0,2})(?![A-Za-z0-9_-])`,
    score: 0.9,
    validate: 'placeholder',
  },
  prefixed('slack-workspace-token', CHAT, 'Slack', 'xox', `[ar]-\\d-[${B62}]{20,60}`, 0.92),
  prefixed('slack-app-token', CHAT, 'Slack', 'xapp-', `\\d-[A-Z0-9]{9,12}-\\d{10,14}-[a-f0-9]{40,80}`, 0.95),
  prefixed('slack-config-token', CHAT, 'Slack', 'xoxe.xox', `[bp]-\\d-[${B62}]{100,300}`, 0.95),
  prefixed('slack-config-refresh-token', CHAT, 'Slack', 'xoxe-', `\\d-[${B62}]{100,300}`, 0.95),
  {
    name: 'slack-webhook',
    entity: CHAT,
    provider: 'Slack',
    markers: ['hooks.slack.com/'],
    source: `hooks\\.slack\\.com/(?:services|workflows|triggers)/(?<secret>[A-Za-z0-9+/]{40,130})`,
    score: 0.93,
    validate: 'keyMaterial',
  },
  {
    name: 'discord-webhook',
    entity: CHAT,
    provider: 'Discord',
    markers: ['/api/webhooks/'],
    source: `discord(?:app)?\\.com/api/webhooks/\\d{17,20}/(?<secret>[${B64URL}]{60,72})`,
    score: 0.95,
    validate: 'keyMaterial',
  },
  {
    // Bot tokens: base64 of the numeric bot id, a timestamp and an HMAC. The id decoding is a
    // strong check, so the row runs on any text with a dot.
    name: 'discord-bot-token',
    entity: CHAT,
    provider: 'Discord',
    markers: ['.'],
    source: `${L}(?<secret>[MNO][A-Za-z0-9_-]{23,27}\\.[A-Za-z0-9_-]{6}\\.[A-Za-z0-9_-]{27,38})${R}`,
    score: 0.92,
    validate: 'discordBot',
  },
  {
    name: 'telegram-bot-token',
    entity: CHAT,
    provider: 'Telegram',
    markers: [':aa'],
    source: `${L}(?<secret>\\d{8,10}:AA[${B64URL}]{33})(?![A-Za-z0-9_-])`,
    score: 0.93,
    validate: 'keyMaterial',
  },
  {
    name: 'teams-webhook',
    entity: CHAT,
    provider: 'Microsoft Teams',
    markers: ['webhook.office.com/'],
    source: `(?<secret>webhook\\.office\\.com/webhookb2/[A-Za-z0-9@/_-]{80,300})`,
    score: 0.93,
    validate: 'none',
  },
  {
    name: 'mattermost-or-rocketchat-webhook',
    entity: CHAT,
    provider: 'Mattermost/Rocket.Chat',
    markers: ['/hooks/'],
    // Mattermost: one 26-character id; Rocket.Chat: a 17-character id, then the token.
    source: `https?://[A-Za-z0-9.-]{3,100}/hooks/(?<secret>[a-z0-9]{26}|[A-Za-z0-9]{17}/[A-Za-z0-9]{40,64})${R}`,
    score: 0.6,
    validate: 'keyMaterial',
  },

  // ---- Search vendors ----------------------------------------------------------------------
  prefixed('tavily-key', SEARCH, 'Tavily', 'tvly-', `(?:dev-|prod-)?[${B62}]{32}`, 0.92),
  {
    name: 'algolia-key',
    entity: SEARCH,
    provider: 'Algolia',
    markers: ['algolia'],
    source: `(?:algolia|ALGOLIA|Algolia)[A-Za-z0-9_.-]{0,30}["']?\\s{0,4}(?:=|:|=>|,)\\s{0,4}["']?(?<secret>[a-f0-9]{32})${R}`,
    score: 0.9,
    validate: 'keyMaterial',
    entropyBonus: 0.3,
  },

  // ---- Payment vendors -----------------------------------------------------------------
  {
    name: 'stripe-secret-key',
    prefix: true,
    entity: PAYMENT,
    provider: 'Stripe',
    markers: ['sk_live_', 'sk_test_', 'sk_prod_', 'rk_live_', 'rk_test_', 'rk_prod_'],
    source: `${L}(?<secret>[sr]k_(?:live|test|prod)_[${B62}]{20,247})${R}`,
    score: 0.95,
    validate: 'keyMaterial',
  },
  prefixed('stripe-webhook-secret', PAYMENT, 'Stripe', 'whsec_', `[${B62}]{32,64}`, 0.92),
  {
    // Publishable keys are meant for browsers; reported at low confidence for policy to weigh.
    name: 'stripe-publishable-key',
    prefix: true,
    entity: PAYMENT,
    provider: 'Stripe',
    markers: ['pk_live_', 'pk_test_'],
    source: `${L}(?<secret>pk_(?:live|test)_[${B62}]{20,247})${R}`,
    score: 0.5,
    validate: 'keyMaterial',
  },
  prefixed('square-access-token', PAYMENT, 'Square', 'sq0atp-', `[${B64URL}]{22}`, 0.93),
  prefixed('square-oauth-secret', PAYMENT, 'Square', 'sq0csp-', `[${B64URL}]{43}`, 0.93),
  prefixed('square-production-token', PAYMENT, 'Square', 'EAAA', `[A-Za-z0-9_+=-]{22,60}`, 0.8),
  {
    name: 'braintree-access-token',
    entity: PAYMENT,
    provider: 'PayPal Braintree',
    markers: ['access_token$'],
    source: `(?<secret>access_token\\$(?:production|sandbox)\\$[a-z0-9]{16}\\$[a-f0-9]{32})`,
    score: 0.96,
    validate: 'none',
  },
  prefixed('razorpay-key', PAYMENT, 'Razorpay', 'rzp_', `(?:live|test)_[${B62}]{14}`, 0.85),
  prefixed('flutterwave-public-key', PAYMENT, 'Flutterwave', 'FLWPUBK', `(?:_TEST)?-[a-h0-9]{32}-X`, 0.9, { flags: 'gi' }),
  prefixed('flutterwave-secret-key', PAYMENT, 'Flutterwave', 'FLWSECK', `(?:_TEST)?-[a-h0-9]{32}-X`, 0.93, { flags: 'gi' }),
  prefixed('flutterwave-encryption-key', PAYMENT, 'Flutterwave', 'FLWSECK_TEST', '-?[a-h0-9]{12}', 0.9, { flags: 'gi' }),
  {
    name: 'plaid-access-token',
    prefix: true,
    entity: PAYMENT,
    provider: 'Plaid',
    markers: ['access-sandbox-', 'access-development-', 'access-production-'],
    source: `${L}(?<secret>access-(?:sandbox|development|production)-[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12})${R}`,
    score: 0.93,
    validate: 'none',
  },
  {
    name: 'coinbase-or-exchange-key',
    entity: PAYMENT,
    provider: 'Coinbase',
    markers: ['organizations/'],
    source: `(?<secret>organizations/[a-f0-9-]{36}/apiKeys/[a-f0-9-]{36})`,
    score: 0.85,
    validate: 'none',
  },

  // ---- Private keys, JWTs, connection strings --------------------------------------------
  {
    // Header only; the pem validator checks the body and extends the span to the END line.
    name: 'pem-private-key',
    entity: 'SECRET.PRIVATE_KEY',
    provider: 'PEM',
    markers: ['-----begin', '---- begin'],
    source: `-{4,5} ?BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)? ?-{4,5}`,
    score: 0.97,
    validate: 'pem',
  },
  {
    // .NET exports RSA keys as XML; the private exponent <D> is the secret part. Gated on the
    // <RSAKeyValue> marker; the regex itself only spans the <D> element, so it stays linear.
    name: 'xml-rsa-private-key',
    entity: 'SECRET.PRIVATE_KEY',
    provider: '.NET RSAKeyValue',
    markers: ['<rsakeyvalue>'],
    source: `<D>\\s{0,4}(?<secret>[A-Za-z0-9+/=]{40,2000})(?=\\s{0,4}</D>)`,
    score: 0.95,
    validate: 'none',
  },
  {
    name: 'putty-private-key',
    entity: 'SECRET.PRIVATE_KEY',
    provider: 'PuTTY',
    // `Private-Lines:` only occurs in PuTTY key files; matching from it keeps the regex linear.
    markers: ['private-lines:'],
    source: `Private-Lines: \\d{1,3}\\s{1,4}(?<secret>[A-Za-z0-9+/=\\s]{40,8000})`,
    score: 0.95,
    validate: 'none',
  },
  prefixed('age-secret-key', 'SECRET.PRIVATE_KEY', 'age', 'AGE-SECRET-KEY-1', '[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}', 0.96, {
    validate: 'none',
  }),
  {
    name: 'jwt',
    entity: 'SECRET.JWT',
    provider: 'JSON Web Token',
    // Headers and payloads are JSON objects: `{"` is eyJ, `{ "` eyA, `{` and a newline ewo/ew0/ewk.
    markers: ['eyj', 'ewo', 'eya', 'ew0', 'ewk'],
    source: `${L}(?<secret>e(?:yJ|wo|yA|w0|wk)[${B64URL}]{8,2000}\\.e(?:yJ|wo|yA|w0|wk)[${B64URL}]{2,8000}\\.[${B64URL}]{0,2000})(?![A-Za-z0-9_-])`,
    score: 0.95,
    validate: 'jwt',
  },
  {
    // Encrypted tokens (JWE compact form): header, encrypted key (empty for `dir`), iv, ciphertext, tag.
    name: 'jwe',
    entity: 'SECRET.JWT',
    provider: 'JSON Web Encryption',
    markers: ['eyj'],
    source: `${L}(?<secret>eyJ[${B64URL}]{8,2000}\\.[${B64URL}]{0,2000}\\.[${B64URL}]{8,200}\\.[${B64URL}]{8,8000}\\.[${B64URL}]{8,200})(?![A-Za-z0-9_.-])`,
    score: 0.93,
    validate: 'jwt',
  },
  {
    name: 'url-credentials',
    entity: 'SECRET.CONNECTION_STRING',
    provider: 'URL with credentials',
    markers: ['://'],
    source: `(?<![A-Za-z0-9+.-])(?<secret>[a-zA-Z][a-zA-Z0-9+.-]{1,24}://[^\\s:@/"'\`<>]{0,128}:[^\\s@/"'\`<>]{3,256}@[A-Za-z0-9._-]{1,253}(?::\\d{1,5})?)`,
    score: 0.9,
    validate: 'urlCredentials',
  },

  // ---- SaaS and developer tools (SECRET.GENERIC) -----------------------------------------
  {
    name: 'sendgrid-key',
    entity: GENERIC,
    provider: 'SendGrid',
    markers: ['sg.'],
    source: `${L}(?<secret>SG\\.[A-Za-z0-9_=-]{16,32}\\.[A-Za-z0-9_=-]{30,50}|SG\\.[A-Za-z0-9_=.-]{66})(?![A-Za-z0-9_=.-])`,
    score: 0.93,
    validate: 'keyMaterial',
  },
  prefixed('twilio-api-key', GENERIC, 'Twilio', 'SK', '[0-9a-fA-F]{32}', 0.85, { entropyBonus: 0.3 }),
  // Account SIDs identify rather than authenticate, but travel with the auth token.
  prefixed('twilio-account-sid', GENERIC, 'Twilio', 'AC', '[0-9a-f]{32}', 0.5, { entropyBonus: 0.3 }),
  prefixed('mailgun-private-key', GENERIC, 'Mailgun', 'key-', '[0-9a-f]{32}', 0.85, { entropyBonus: 0.3 }),
  prefixed('mailgun-public-key', GENERIC, 'Mailgun', 'pubkey-', '[0-9a-f]{32}', 0.7, { entropyBonus: 0.3 }),
  {
    name: 'mailchimp-key',
    entity: GENERIC,
    provider: 'Mailchimp',
    markers: ['-us'],
    source: `${L}(?<secret>[0-9a-f]{32}-us\\d{1,2})${R}`,
    score: 0.92,
    validate: 'keyMaterial',
    entropyBonus: 0.3,
  },
  prefixed('brevo-api-key', GENERIC, 'Brevo', 'xkeysib-', '[a-f0-9]{64}-[A-Za-z0-9]{16}', 0.95),
  prefixed('brevo-smtp-key', GENERIC, 'Brevo', 'xsmtpsib-', '[a-f0-9]{64}-[A-Za-z0-9]{16}', 0.95),
  // 32 hex characters at first; newer tokens are longer and alphanumeric.
  prefixed('shopify-token', GENERIC, 'Shopify', 'shp', `(?:at|ca|pa|ss)_(?:[a-fA-F0-9]{32}|[${B62}]{32,64})`, 0.95, {
    markers: ['shpat_', 'shpca_', 'shppa_', 'shpss_'],
    entropyBonus: 0.3,
  }),
  prefixed('doppler-token', GENERIC, 'Doppler', 'dp.', `(?:pt|st|sa|ct|scim|audit)\\.[${B62}]{40,44}`, 0.95, {
    markers: ['dp.pt.', 'dp.st.', 'dp.sa.', 'dp.ct.', 'dp.scim.', 'dp.audit.'],
  }),
  prefixed('onepassword-service-account-token', GENERIC, '1Password', 'ops_eyJ', `[A-Za-z0-9+/]{250,3000}={0,3}`, 0.95),
  {
    name: 'onepassword-secret-key',
    prefix: true,
    entity: GENERIC,
    provider: '1Password',
    markers: ['a3-'],
    source: `${L}(?<secret>A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5})${R}`,
    score: 0.9,
    validate: 'keyMaterial',
  },
  prefixed('new-relic-key', GENERIC, 'New Relic', 'NR', `(?:AK|II|JS|AA|RA|IQ)-[A-Za-z0-9_-]{19,40}`, 0.9, {
    markers: ['nrak-', 'nrii-', 'nrjs-', 'nraa-', 'nrra-', 'nriq-'],
  }),
  prefixed('linear-api-key', GENERIC, 'Linear', 'lin_api_', `[${B62}]{40}`, 0.95),
  prefixed('linear-oauth-token', GENERIC, 'Linear', 'lin_oauth_', '[a-f0-9]{64}', 0.93),
  prefixed('notion-secret', GENERIC, 'Notion', 'secret_', `[${B62}]{43}`, 0.88),
  prefixed('notion-token', GENERIC, 'Notion', 'ntn_', `\\d{11}[${B62}]{35}`, 0.93),
  prefixed('postman-key', GENERIC, 'Postman', 'PMAK-', '[a-f0-9]{24}-[a-f0-9]{34}', 0.95, { entropyBonus: 0.3 }),
  prefixed('atlassian-api-token', GENERIC, 'Atlassian', 'ATATT3', `[A-Za-z0-9_=-]{100,250}`, 0.95),
  prefixed('grafana-cloud-token', GENERIC, 'Grafana', 'glc_', `[A-Za-z0-9+/]{32,400}={0,3}`, 0.9),
  prefixed('grafana-service-account-token', GENERIC, 'Grafana', 'glsa_', `[${B62}]{32}_[A-Fa-f0-9]{8}`, 0.93),
  prefixed('grafana-api-key', GENERIC, 'Grafana', 'eyJrIjoi', `[A-Za-z0-9]{60,400}={0,3}`, 0.9),
  prefixed('sentry-org-token', GENERIC, 'Sentry', 'sntrys_eyJ', `[A-Za-z0-9+/=]{60,600}_[A-Za-z0-9+/]{43}`, 0.95),
  prefixed('sentry-user-token', GENERIC, 'Sentry', 'sntryu_', '[a-f0-9]{64}', 0.93, { entropyBonus: 0.3 }),
  prefixed('sonarqube-token', GENERIC, 'SonarQube', 'sq', '[pua]_[a-fA-F0-9]{40}', 0.9, {
    markers: ['sqp_', 'squ_', 'sqa_'],
    entropyBonus: 0.3,
  }),
  prefixed('prefect-token', GENERIC, 'Prefect', 'pnu_', `[${B62}]{36}`, 0.93),
  prefixed('readme-token', GENERIC, 'ReadMe', 'rdme_', '[a-z0-9]{70}', 0.93),
  prefixed('infracost-token', GENERIC, 'Infracost', 'ico-', `[${B62}]{32}`, 0.9),
  prefixed('scalingo-token', GENERIC, 'Scalingo', 'tk-us-', `[${B64URL}]{48}`, 0.93),
  prefixed('dynatrace-token', GENERIC, 'Dynatrace', 'dt0c01.', '[A-Za-z0-9]{24}\\.[A-Za-z0-9]{64}', 0.95),
  prefixed('frameio-token', GENERIC, 'Frame.io', 'fio-u-', `[A-Za-z0-9_=-]{64}`, 0.93),
  prefixed('airtable-pat', GENERIC, 'Airtable', 'pat', `[${B62}]{14}\\.[a-f0-9]{64}`, 0.93, { markers: ['pat'], prefix: false }),
  prefixed('adobe-client-secret', GENERIC, 'Adobe', 'p8e-', '[A-Za-z0-9]{32}', 0.9),
  prefixed('intra42-client-secret', GENERIC, '42', 's-s4t2', '(?:ud|af)-[a-f0-9]{64}', 0.93),
  prefixed('settlemint-token', GENERIC, 'SettleMint', 'sm_', `(?:pat|aat|sat)_[${B62}]{16}`, 0.9, {
    markers: ['sm_pat_', 'sm_aat_', 'sm_sat_'],
  }),
  prefixed('clickhouse-cloud-key', GENERIC, 'ClickHouse', '4b1d', `[${B62}]{38}`, 0.9),
  prefixed('defined-networking-token', GENERIC, 'Defined Networking', 'dnkey-', '[a-z0-9=_-]{26}-[a-z0-9=_-]{52}', 0.93),
  prefixed('pulumi-token', GENERIC, 'Pulumi', 'pul-', '[a-f0-9]{40}', 0.93, { entropyBonus: 0.3 }),
  prefixed('typeform-token', GENERIC, 'Typeform', 'tfp_', `[A-Za-z0-9_.=-]{59}`, 0.93),
  prefixed('easypost-key', GENERIC, 'EasyPost', 'EZ', `[AT]K[${B62}]{54}`, 0.93, { markers: ['ezak', 'eztk'] }),
  prefixed('duffel-token', GENERIC, 'Duffel', 'duffel_', `(?:test|live)_[A-Za-z0-9_=-]{43}`, 0.93),
  prefixed('shippo-token', GENERIC, 'Shippo', 'shippo_', '(?:live|test)_[a-fA-F0-9]{40}', 0.93, { entropyBonus: 0.3 }),
  prefixed('hubspot-pat', GENERIC, 'HubSpot', 'pat-', '(?:na|eu)\\d-[a-f0-9-]{36}', 0.9),
  prefixed('dropbox-short-lived-token', GENERIC, 'Dropbox', 'sl.', `[${B64URL}]{130,1400}`, 0.88),
  prefixed('mapbox-secret-token', GENERIC, 'Mapbox', 'sk.eyJ', `[${B64URL}]{40,400}\\.[${B64URL}]{20,60}`, 0.93),
  prefixed('harness-token', GENERIC, 'Harness', '', `(?:pat|sat)\\.[${B64URL}]{22}\\.[a-f0-9]{24}\\.[${B62}]{20}`, 0.93, {
    markers: ['pat.', 'sat.'],
  }),
  prefixed('octopus-deploy-key', GENERIC, 'Octopus Deploy', 'API-', '[A-Z0-9]{26}', 0.85, { entropyBonus: 0.4 }),
  prefixed('twitch-oauth-token', GENERIC, 'Twitch', 'oauth:', '[a-z0-9]{30}', 0.7),
  prefixed('contentful-pat', GENERIC, 'Contentful', 'CFPAT-', `[${B64URL}]{43}`, 0.93),
  prefixed('netlify-pat', GENERIC, 'Netlify', 'nfp_', `[${B62}]{36,40}`, 0.9),
  prefixed('launchdarkly-key', GENERIC, 'LaunchDarkly', 'api-', '[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}', 0.6),
  prefixed('launchdarkly-sdk-key', GENERIC, 'LaunchDarkly', 'sdk-', '[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}', 0.6),
  prefixed('figma-pat', GENERIC, 'Figma', 'figd_', `[${B64URL}]{40}`, 0.93),
  {
    name: 'vercel-token',
    prefix: true,
    entity: GENERIC,
    provider: 'Vercel',
    markers: ['vcp_', 'vci_', 'vca_', 'vcr_', 'vck_'],
    source: `${L}(?<secret>vc[piark]_[${B62}]{24,64})${R}`,
    score: 0.9,
    validate: 'keyMaterial',
  },
  {
    name: 'tailscale-key',
    prefix: true,
    entity: GENERIC,
    provider: 'Tailscale',
    markers: ['tskey-'],
    source: `(?<![A-Za-z0-9])(?<secret>tskey-(?:api|auth|client|scim|webhook|future)-[${B62}]{8,20}-[${B62}]{16,64})${R}`,
    score: 0.93,
    validate: 'keyMaterial',
  },
  prefixed('asana-pat', GENERIC, 'Asana', '2/', '\\d{16}/\\d{16}:[a-f0-9]{32}', 0.85, { markers: ['2/'] }),
  prefixed('zapier-webhook', GENERIC, 'Zapier', 'hooks.zapier.com/hooks/catch/', '\\d{4,12}/[a-z0-9]{4,12}', 0.8, {
    validate: 'none',
  }),
  prefixed('facebook-page-token', GENERIC, 'Meta', 'EAA', `[${B62}]{90,400}`, 0.92),
  {
    name: 'facebook-app-token',
    entity: GENERIC,
    provider: 'Meta',
    markers: ['|', '%7c'],
    source: `${L}(?<secret>\\d{15,16}(?:\\||%7C)[${B64URL}]{27})(?![A-Za-z0-9_-])`,
    score: 0.85,
    validate: 'keyMaterial',
  },
  {
    name: 'twitter-bearer-token',
    entity: GENERIC,
    provider: 'X (Twitter)',
    markers: ['aaaaaaaaaaaaaaaaaaaaa'],
    source: `${L}(?<secret>A{20,24}[A-Za-z0-9%]{60,110})${R}`,
    score: 0.9,
    validate: 'none',
  },
  {
    name: 'sidekiq-credentials',
    entity: GENERIC,
    provider: 'Sidekiq',
    markers: ['contribsys__com'],
    source: `BUNDLE_(?:ENTERPRISE|GEMS)__CONTRIBSYS__COM[A-Za-z_]{0,8}["']?\\s{0,3}(?:=|:|:=)\\s{0,3}["']?(?<secret>[a-f0-9]{8}:[a-f0-9]{8})`,
    score: 0.9,
    validate: 'none',
    flags: 'gi',
  },
];

function toPattern(row: Row): SecretPattern {
  return {
    name: row.name,
    entity: row.entity,
    provider: row.provider,
    markers: row.markers,
    regex: rx(row.source, row.flags ?? 'g'),
    score: row.score,
    validate: row.validate ?? 'keyMaterial',
    ...(row.entropyBonus === undefined ? {} : { entropyBonus: row.entropyBonus }),
    prefix: row.prefix ?? false,
  };
}

export const SECRET_PATTERNS: readonly SecretPattern[] = ROWS.map(toPattern);
