// Tests for secrets.native: per-provider table tests (entity, span, score band), look-alikes that
// must not fire, adversarial inputs that must stay fast, and the development-set score (F1 target
// 0.95 with per-type recall printed). Fake tokens are assembled at run time from a seeded
// generator so that this file itself carries no token-shaped literals for scanners to trip on.
import { describe, expect, it } from 'vitest';
import { DATASET_FILES, FIXTURE_DIR, counts, loadDataset, score } from '../quality/datasets.js';
import { SURFACES, type DetectContext, type Detection } from '../types.js';
import { secretsNative } from './native.js';
import { SECRET_PATTERNS } from './patterns.js';
import { LINEAR_BOUND_MS } from '../../../../test/helpers/linear.js';

const context: DetectContext = { surface: 'input', settings: { pii_packs: ['global'] } };

function detect(text: string): Detection[] {
  const result = secretsNative.detect(text, context);
  if (result instanceof Promise) throw new Error('secrets.native must be synchronous');
  return result;
}

// Deterministic pseudo-random strings (mulberry32), so failures are reproducible.
let seed = 0x5eed;
function random(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const B64URL = `${ALNUM}-_`;
const HEX = '0123456789abcdef';
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const DIGITS = '0123456789';
function r(alphabet: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i += 1) out += alphabet[Math.floor(random() * alphabet.length)];
  return out;
}
const b64url = (value: string): string => Buffer.from(value).toString('base64url');
const pemBody = (lines: number): string => Array.from({ length: lines }, () => r(`${ALNUM}+/`, 64)).join('\n');
function pem(label: string, lines = 4, headers = ''): string {
  return `-----BEGIN ${label}-----\n${headers}${pemBody(lines)}\n-----END ${label}-----`;
}
const jwt = (header: object, payload: object): string =>
  `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(payload))}.${r(B64URL, 43)}`;

interface Positive {
  name: string;
  /** The secret itself; the text embeds it with `before`/`after` around it. */
  secret: string;
  entity: string;
  before?: string;
  after?: string;
  minScore?: number;
}

const POSITIVES: Positive[] = [
  // Model providers
  { name: 'OpenAI project key', secret: `sk-proj-${r(B64URL, 58)}T3BlbkFJ${r(B64URL, 58)}`, entity: 'SECRET.MODEL_API_KEY', minScore: 0.9 },
  { name: 'OpenAI legacy key', secret: `sk-${r(ALNUM, 48)}`, entity: 'SECRET.MODEL_API_KEY', before: 'OPENAI_API_KEY=' },
  { name: 'Anthropic key', secret: `sk-ant-api03-${r(B64URL, 93)}AA`, entity: 'SECRET.MODEL_API_KEY', minScore: 0.9 },
  { name: 'Groq key', secret: `gsk_${r(ALNUM, 52)}`, entity: 'SECRET.MODEL_API_KEY' },
  { name: 'Hugging Face token', secret: `hf_${r(ALNUM, 34)}`, entity: 'SECRET.MODEL_API_KEY', before: 'huggingface-cli login --token ' },
  { name: 'OpenRouter key', secret: `sk-or-v1-${r(HEX, 64)}`, entity: 'SECRET.MODEL_API_KEY' },
  { name: 'Perplexity key', secret: `pplx-${r(ALNUM, 48)}`, entity: 'SECRET.MODEL_API_KEY' },
  { name: 'Replicate token', secret: `r8_${r(ALNUM, 37)}`, entity: 'SECRET.MODEL_API_KEY' },
  { name: 'Mistral key by name', secret: r(ALNUM, 32), entity: 'SECRET.MODEL_API_KEY', before: 'MISTRAL_API_KEY="', after: '"' },
  { name: 'ElevenLabs key', secret: `sk_${r(HEX, 48)}`, entity: 'SECRET.MODEL_API_KEY' },
  { name: 'Langfuse secret key', secret: `sk-lf-${r(HEX, 8)}-${r(HEX, 4)}-${r(HEX, 4)}-${r(HEX, 4)}-${r(HEX, 12)}`, entity: 'SECRET.MODEL_API_KEY' },
  // Cloud providers
  { name: 'Firebase messaging server key', secret: `AAAA${r(B64URL, 7)}:APA91b${r(B64URL, 134)}`, entity: 'SECRET.CLOUD_ACCESS_KEY' },
  { name: 'Okta SSWS header', secret: `00${r(B64URL, 40)}`, entity: 'SECRET.GENERIC', before: 'Authorization: SSWS ' },
  { name: 'AWS access key id', secret: `AKIA${r(BASE32, 16)}`, entity: 'SECRET.CLOUD_ACCESS_KEY', before: 'aws_access_key_id = ' },
  { name: 'AWS STS key id', secret: `ASIA${r(BASE32, 16)}`, entity: 'SECRET.CLOUD_ACCESS_KEY' },
  { name: 'AWS secret access key', secret: r(`${ALNUM}+/`, 40), entity: 'SECRET.CLOUD_ACCESS_KEY', before: 'aws_secret_access_key = ' },
  { name: 'GCP API key', secret: `AIzaSy${r(B64URL, 33)}`, entity: 'SECRET.CLOUD_ACCESS_KEY', before: 'apiKey: "', after: '"' },
  { name: 'Azure AD client secret', secret: `${r(ALNUM, 3)}8Q~${r(ALNUM, 34)}`, entity: 'SECRET.CLOUD_ACCESS_KEY' },
  { name: 'Azure storage key', secret: `${r(ALNUM, 86)}==`, entity: 'SECRET.CLOUD_ACCESS_KEY', before: 'DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=' },
  { name: 'DigitalOcean PAT', secret: `dop_v1_${r(HEX, 64)}`, entity: 'SECRET.CLOUD_ACCESS_KEY' },
  { name: 'Vault service token', secret: `hvs.${r(B64URL, 95)}`, entity: 'SECRET.CLOUD_ACCESS_KEY' },
  { name: 'Alibaba key id', secret: `LTAI${r(ALNUM, 20)}`, entity: 'SECRET.CLOUD_ACCESS_KEY' },
  { name: 'Google OAuth client secret', secret: `GOCSPX-${r(B64URL, 28)}`, entity: 'SECRET.CLOUD_ACCESS_KEY' },
  // Code hosts and registries
  { name: 'GitHub PAT', secret: `ghp_${r(ALNUM, 36)}`, entity: 'SECRET.CODE_HOST_TOKEN', minScore: 0.9 },
  { name: 'GitHub app token', secret: `ghs_${r(ALNUM, 36)}`, entity: 'SECRET.CODE_HOST_TOKEN' },
  { name: 'GitHub fine-grained PAT', secret: `github_pat_${r(ALNUM, 22)}_${r(ALNUM, 59)}`, entity: 'SECRET.CODE_HOST_TOKEN' },
  { name: 'GitLab PAT', secret: `glpat-${r(B64URL, 20)}`, entity: 'SECRET.CODE_HOST_TOKEN' },
  { name: 'Bitbucket app password', secret: `ATBB${r(ALNUM, 32)}`, entity: 'SECRET.CODE_HOST_TOKEN' },
  { name: 'npm token', secret: `npm_${r(ALNUM, 36)}`, entity: 'SECRET.CODE_HOST_TOKEN', before: '//registry.npmjs.org/:_authToken=' },
  { name: 'PyPI token', secret: `pypi-AgEIcHlwaS5vcmc${r(B64URL, 70)}`, entity: 'SECRET.CODE_HOST_TOKEN' },
  // Chat tools
  { name: 'Slack bot token', secret: `xoxb-${r(DIGITS, 12)}-${r(DIGITS, 13)}-${r(ALNUM, 24)}`, entity: 'SECRET.CHAT_TOOL_TOKEN' },
  { name: 'Slack user token', secret: `xoxp-${r(DIGITS, 12)}-${r(DIGITS, 12)}-${r(DIGITS, 13)}-${r(HEX, 32)}`, entity: 'SECRET.CHAT_TOOL_TOKEN' },
  { name: 'Slack app token', secret: `xapp-1-A${r('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', 10)}-${r(DIGITS, 13)}-${r(HEX, 64)}`, entity: 'SECRET.CHAT_TOOL_TOKEN' },
  { name: 'Slack webhook', secret: `T${r(ALNUM, 8)}/B${r(ALNUM, 10)}/${r(ALNUM, 24)}`, entity: 'SECRET.CHAT_TOOL_TOKEN', before: 'https://hooks.slack.com/services/' },
  { name: 'Discord webhook', secret: r(B64URL, 68), entity: 'SECRET.CHAT_TOOL_TOKEN', before: `https://discord.com/api/webhooks/${r(DIGITS, 18)}/` },
  { name: 'Telegram bot token', secret: `${r(DIGITS, 10)}:AA${r(B64URL, 33)}`, entity: 'SECRET.CHAT_TOOL_TOKEN' },
  { name: 'Discord token by name', secret: r(ALNUM, 40), entity: 'SECRET.CHAT_TOOL_TOKEN', before: 'DISCORD_BOT_TOKEN=' },
  // Search and payment vendors
  { name: 'Algolia admin key', secret: r(HEX, 32), entity: 'SECRET.SEARCH_KEY', before: 'ALGOLIA_ADMIN_KEY=' },
  { name: 'Tavily key', secret: `tvly-${r(ALNUM, 32)}`, entity: 'SECRET.SEARCH_KEY' },
  { name: 'Stripe live secret key', secret: `sk_live_${r(ALNUM, 24)}`, entity: 'SECRET.PAYMENT_KEY', minScore: 0.9 },
  { name: 'Stripe restricted key', secret: `rk_live_${r(ALNUM, 99)}`, entity: 'SECRET.PAYMENT_KEY' },
  { name: 'Square OAuth secret', secret: `sq0csp-${r(B64URL, 43)}`, entity: 'SECRET.PAYMENT_KEY' },
  { name: 'Braintree token', secret: `access_token$production$${r('abcdefghijklmnopqrstuvwxyz0123456789', 16)}$${r(HEX, 32)}`, entity: 'SECRET.PAYMENT_KEY' },
  // SaaS tokens
  { name: 'SendGrid key', secret: `SG.${r(B64URL, 22)}.${r(B64URL, 43)}`, entity: 'SECRET.GENERIC' },
  { name: 'Twilio API key', secret: `SK${r(HEX, 32)}`, entity: 'SECRET.GENERIC' },
  { name: 'Mailgun key', secret: `key-${r(HEX, 32)}`, entity: 'SECRET.GENERIC' },
  { name: 'Shopify token', secret: `shpat_${r(HEX, 32)}`, entity: 'SECRET.GENERIC' },
  { name: 'Doppler token', secret: `dp.pt.${r(ALNUM, 43)}`, entity: 'SECRET.GENERIC' },
  { name: 'New Relic user key', secret: `NRAK-${r('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', 27)}`, entity: 'SECRET.GENERIC' },
  { name: 'Linear key', secret: `lin_api_${r(ALNUM, 40)}`, entity: 'SECRET.GENERIC' },
  { name: 'Postman key', secret: `PMAK-${r(HEX, 24)}-${r(HEX, 34)}`, entity: 'SECRET.GENERIC' },
  { name: '1Password service account', secret: `ops_eyJ${r(`${ALNUM}+/`, 300)}`, entity: 'SECRET.GENERIC' },
  // Parapet's own tokens
  { name: 'Parapet operator token', secret: `ppt_op_${r(B64URL, 43)}`, entity: 'SECRET.GATEWAY_TOKEN', minScore: 0.95 },
  { name: 'Parapet agent token', secret: `ppt_ag_${r(B64URL, 43)}`, entity: 'SECRET.GATEWAY_TOKEN' },
  // Private keys of every kind
  { name: 'PKCS#8 key', secret: pem('PRIVATE KEY'), entity: 'SECRET.PRIVATE_KEY', minScore: 0.95 },
  { name: 'RSA key', secret: pem('RSA PRIVATE KEY'), entity: 'SECRET.PRIVATE_KEY' },
  { name: 'EC key', secret: pem('EC PRIVATE KEY', 2), entity: 'SECRET.PRIVATE_KEY' },
  { name: 'DSA key', secret: pem('DSA PRIVATE KEY'), entity: 'SECRET.PRIVATE_KEY' },
  { name: 'OpenSSH key', secret: pem('OPENSSH PRIVATE KEY', 6), entity: 'SECRET.PRIVATE_KEY' },
  { name: 'encrypted PKCS#8 key', secret: pem('ENCRYPTED PRIVATE KEY'), entity: 'SECRET.PRIVATE_KEY' },
  {
    name: 'legacy encrypted RSA key',
    secret: pem('RSA PRIVATE KEY', 4, `Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,${r(HEX, 32).toUpperCase()}\n\n`),
    entity: 'SECRET.PRIVATE_KEY',
  },
  { name: 'PGP private key block', secret: pem('PGP PRIVATE KEY BLOCK', 4, 'Version: GnuPG v2\n\n'), entity: 'SECRET.PRIVATE_KEY' },
  {
    name: 'key inside JSON with escaped newlines',
    secret: `-----BEGIN PRIVATE KEY-----\\n${r(ALNUM, 64)}\\n${r(ALNUM, 64)}\\n-----END PRIVATE KEY-----`,
    entity: 'SECRET.PRIVATE_KEY',
    before: '{"type": "service_account", "private_key": "',
    after: '\\n"}',
  },
  // JWTs
  { name: 'HS256 JWT', secret: jwt({ alg: 'HS256', typ: 'JWT' }, { sub: '1234', exp: 1999999999 }), entity: 'SECRET.JWT', before: 'Authorization: Bearer ', minScore: 0.9 },
  { name: 'RS256 JWT with kid', secret: jwt({ alg: 'RS256', kid: 'k1' }, { iss: 'https://issuer' }), entity: 'SECRET.JWT' },
  { name: 'unsigned JWT', secret: `${b64url('{"alg":"none"}')}.${b64url('{"sub":"x"}')}.`, entity: 'SECRET.JWT' },
  // Connection strings
  { name: 'PostgreSQL URL', secret: `postgres://app:${r(ALNUM, 16)}@db.internal:5432`, entity: 'SECRET.CONNECTION_STRING', after: '/prod' },
  { name: 'MongoDB SRV URL', secret: `mongodb+srv://admin:${r(ALNUM, 20)}@cluster0.abcde.mongodb.net`, entity: 'SECRET.CONNECTION_STRING', after: '/?retryWrites=true' },
  { name: 'Redis URL', secret: `redis://default:${r(ALNUM, 24)}@cache.local:6379`, entity: 'SECRET.CONNECTION_STRING', after: '/0' },
  { name: 'token in a query string', secret: r(ALNUM, 32), entity: 'SECRET.GENERIC', before: 'GET /v1/items?access_token=', after: '&page=2' },
  { name: 'AMQP URL', secret: `amqps://svc:${r(ALNUM, 18)}@mq.internal`, entity: 'SECRET.CONNECTION_STRING' },
  { name: 'JDBC password', secret: `Q${r(ALNUM, 14)}!`, entity: 'SECRET.CONNECTION_STRING', before: 'jdbc:sqlserver://db:1433;databaseName=app;user=sa;password=', after: ';' },
  { name: 'ODBC password', secret: `Z${r(ALNUM, 12)}#`, entity: 'SECRET.CONNECTION_STRING', before: 'Driver={ODBC Driver 18};Server=tcp:db,1433;Uid=app;Pwd=', after: ';' },
  // Generic assignments
  { name: 'api_key in Python', secret: r(ALNUM, 32), entity: 'SECRET.GENERIC', before: 'api_key = "', after: '"' },
  { name: 'secret in YAML', secret: r(ALNUM, 40), entity: 'SECRET.GENERIC', before: 'client:\n  secret: ' },
  { name: 'token in JSON', secret: r(B64URL, 36), entity: 'SECRET.GENERIC', before: '{"auth_token": "', after: '"}' },
  { name: 'database password in env file', secret: `H7k!x9Qz#2mL${r(ALNUM, 4)}`, entity: 'SECRET.CONNECTION_STRING', before: 'DB_PASSWORD=' },
  { name: 'Bearer header', secret: r(ALNUM, 40), entity: 'SECRET.GENERIC', before: "curl -H 'Authorization: Bearer ", after: "' https://api" },
  { name: 'password in prose', secret: `Tr0ub4dor&3${r(ALNUM, 3)}`, entity: 'SECRET.GENERIC', before: 'Hi team, the staging password is ', after: ' until Friday.' },
  { name: 'bare service name with a key', secret: r(ALNUM, 40), entity: 'SECRET.GENERIC', before: 'sourcegraph: ' },
  { name: 'Rails secret_key_base', secret: r(HEX, 128), entity: 'SECRET.GENERIC', before: 'production:\n  secret_key_base: ' },
  { name: 'XML password element', secret: `pW9${r(ALNUM, 13)}`, entity: 'SECRET.GENERIC', before: '<password>', after: '</password>' },
  {
    name: 'Discord bot token',
    secret: `${b64url('123456789012345678')}.${r(B64URL, 6)}.${r(B64URL, 38)}`,
    entity: 'SECRET.CHAT_TOOL_TOKEN',
    before: 'client.login("',
    after: '")',
  },
  {
    name: 'SSH2 encrypted key (four dashes)',
    secret: `---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nComment: "rsa-key"\n${pemBody(4)}\n---- END SSH2 ENCRYPTED PRIVATE KEY ----`,
    entity: 'SECRET.PRIVATE_KEY',
  },
  {
    name: '.NET RSAKeyValue private exponent',
    secret: r(`${ALNUM}+/`, 170),
    entity: 'SECRET.PRIVATE_KEY',
    before: `<RSAKeyValue><Modulus>${r(ALNUM, 172)}</Modulus><Exponent>AQAB</Exponent><D>`,
    after: '</D></RSAKeyValue>',
  },
  { name: 'curl basic auth', secret: `deploy:${r(ALNUM, 16)}`, entity: 'SECRET.GENERIC', before: 'curl -u ', after: ' https://ci.internal/api' },
];

describe('secrets.native detector contract', () => {
  it('declares key, surfaces, cost rank and availability', () => {
    expect(secretsNative.key).toBe('secrets.native');
    expect(secretsNative.surfaces).toEqual(SURFACES);
    expect(secretsNative.costRank).toBe(2);
    expect(secretsNative.available()).toEqual({ available: true });
    expect(secretsNative.entityTypes).toContain('SECRET.GATEWAY_TOKEN');
  });

  it('keeps a broad provider table whose rows are well-formed', () => {
    expect(SECRET_PATTERNS.length).toBeGreaterThanOrEqual(150);
    for (const pattern of SECRET_PATTERNS) {
      expect(pattern.regex.global, pattern.name).toBe(true);
      expect(pattern.markers.length, pattern.name).toBeGreaterThan(0);
      for (const marker of pattern.markers) expect(marker, pattern.name).toBe(marker.toLowerCase());
      expect(pattern.score, pattern.name).toBeGreaterThan(0);
      expect(pattern.score, pattern.name).toBeLessThanOrEqual(1);
    }
  });

  it('returns nothing for empty text', () => {
    expect(detect('')).toEqual([]);
  });
});

describe('secrets.native finds provider secrets', () => {
  it.each(POSITIVES)('$name → $entity', ({ secret, entity, before = 'value: ', after = '\n', minScore = 0.5 }) => {
    const text = `${before}${secret}${after}`;
    const found = detect(text);
    const hit = found.find((d) => d.entity === entity);
    expect(hit, JSON.stringify(found)).toBeDefined();
    if (hit === undefined) return;
    expect(text.slice(hit.start, hit.end)).toBe(secret);
    expect(hit.score).toBeGreaterThanOrEqual(minScore);
    expect(hit.score).toBeLessThanOrEqual(1);
    expect(hit.explanation.length).toBeGreaterThan(20);
    expect(hit.pattern).toBeTruthy();
    expect(hit.validator).toBeTruthy();
  });

  it('reports each secret once when several rules see it', () => {
    const token = `ghp_${r(ALNUM, 36)}`;
    const text = `GITHUB_TOKEN="${token}"`;
    const found = detect(text);
    expect(found).toHaveLength(1);
    expect(found[0]?.entity).toBe('SECRET.CODE_HOST_TOKEN');
  });

  it('finds several secrets in one document with correct offsets', () => {
    const aws = `AKIA${r(BASE32, 16)}`;
    const stripe = `sk_live_${r(ALNUM, 24)}`;
    const text = `# config\nAWS_ACCESS_KEY_ID=${aws}\nnotes: rotate monthly\nSTRIPE_KEY=${stripe}\n`;
    const found = detect(text);
    expect(found.map((d) => text.slice(d.start, d.end))).toEqual([aws, stripe]);
    expect(found.map((d) => d.entity)).toEqual(['SECRET.CLOUD_ACCESS_KEY', 'SECRET.PAYMENT_KEY']);
  });

  it('finds every credential in a mixed configuration file and nothing else', () => {
    const db = `Xk9#mQ2vL7${r(ALNUM, 4)}`;
    const django = `django-insecure-7x$k!2m@q9#r^p0w&z3v*e1t(y5u)${r(ALNUM, 4)}`;
    const odbc = `Qw3rty!${r(ALNUM, 5)}`;
    const text = [
      `DATABASE_URL=postgresql://app_user:${db}@db.prod.internal:5432/app`,
      'NODE_ENV=production',
      'SENTRY_DSN=https://abc123@o12345.ingest.sentry.io/67890',
      `settings = {'SECRET_KEY': '${django}'}`,
      `conn = "Server=tcp:db.example.net,1433;Database=app;User ID=admin;Password=${odbc};Encrypt=True;"`,
      'export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY',
      'const toggle = items.filter(key => !FIELDS.has(key));',
      'type T = Partial<ExtractedToken>>(tokenType: TokenType);',
    ].join('\n');
    const found = detect(text).map((d) => [d.entity, text.slice(d.start, d.end)]);
    expect(found).toEqual([
      ['SECRET.CONNECTION_STRING', `postgresql://app_user:${db}@db.prod.internal:5432`],
      ['SECRET.GENERIC', django],
      ['SECRET.CONNECTION_STRING', odbc],
    ]);
  });

  it('reports a PEM key without an END line (truncated paste)', () => {
    const text = `here is my key\n-----BEGIN OPENSSH PRIVATE KEY-----\n${pemBody(3)}`;
    const found = detect(text);
    expect(found).toHaveLength(1);
    expect(found[0]?.entity).toBe('SECRET.PRIVATE_KEY');
  });
});

const NEGATIVES: Array<[string, string]> = [
  ['documented AWS example id', 'aws_access_key_id = AKIAIOSFODNN7EXAMPLE'],
  ['placeholder AWS id', 'key = AKIAXXXXXXXXXXXXXXXX'],
  ['angle-bracket placeholder', 'api_key = "<your-api-key>"'],
  ['changeme', 'password: changeme'],
  ['env reference', 'token=${GITHUB_TOKEN}'],
  ['shell substitution', 'export SECRET=$(cat /run/secrets/app)'],
  ['template', 'password: "{{ .Values.db.password }}"'],
  ['masked', 'api_key: "****************"'],
  ['repeated x', 'secret: xxxxxxxxxxxxxxxxxxxxxxxx'],
  ['GitHub placeholder', `ghp_${'x'.repeat(36)}`],
  ['GitHub wrong length', `ghp_${r(ALNUM, 30)}`],
  ['Slack placeholder', 'xoxb-xxxxxxxxx-xxxxxxxxxx-xxxxxxxxxxxx'],
  ['Slack look-alike in JSON', '"token1": "xoxp-1234567890"'],
  ['Stripe inside a longer word', `nonMatchingToken := "task_test_${r('abcdefghijklmnopqrstuvwxyz0123456789', 30)}"`],
  ['alphabet constant', 'const keyStr = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"'],
  ['public key name', `public_key = "${r(ALNUM, 43)}"`],
  ['CSRF token', `csrf-token=${r(ALNUM, 40)}`],
  ['key id (UUID)', 'kms_key_id = "555ea4a3-d53a-4412-9c66-3a7cb667b0d6"'],
  ['key length', 'key_length = XSalsa20.key_length'],
  ['key file path', 'IceSSL.KeyFile=s_rsa1024_priv.pem'],
  ['secret name', 'LLM_SECRET_NAME = "NEXUS-GPT4-API-KEY"'],
  ['token url', "access_token_url='https://github.com/login/oauth/access_token',"],
  ['version under a token-ish name', 'notes = "Maven - io.jsonwebtoken:jjwt-jackson-0.11.2"'],
  ['PEM with no body', '-----BEGIN PRIVATE KEY-----\nanything\n-----END PRIVATE KEY-----'],
  ['empty OpenSSH block', '-----BEGIN OPENSSH PRIVATE KEY----------END OPENSSH PRIVATE KEY-----'],
  ['public key block', `-----BEGIN PUBLIC KEY-----\n${pemBody(3)}\n-----END PUBLIC KEY-----`],
  ['certificate', `-----BEGIN CERTIFICATE-----\n${pemBody(3)}\n-----END CERTIFICATE-----`],
  ['JWT-shaped but header is not JSON', `${b64url('not json at all')}.${b64url('{"a":1}')}.${r(B64URL, 20)}`],
  ['URL with placeholder password', 'postgres://user:password@localhost:5432/db'],
  ['URL with template password', 'postgres://${DB_USER}:${DB_PASS}@db:5432/app'],
  ['URL without credentials', 'see https://example.com/docs/api-keys for details'],
  ['curl placeholders', 'curl -u "${username}:${password}" https://api'],
  ['curl user only', 'curl -u "myusername" http://localhost:15130/api/check_user/'],
  ['git SHA', 'SRCREV_moby = "43fc912ef59a83054ea7f6706df4d53a7dea4d80"'],
  ['prose about keys', 'Rotate your API key every 90 days and never share the secret token or password with anyone.'],
  ['code comparing a token', 'if (token == expectedToken) { return true; }'],
  ['C++ scope', 'auto k = crypto::key::generate();'],
  ['truncated display value', 'export OP_SERVICE_ACCOUNT_TOKEN=ops_eyJzaWduSW5BZGRyZXNzIjoiaHR0cHM6...'],
  ['Anthropic look-alike with wrong tail', `sk-ant-api03-${r(B64URL, 93)}BB`],
  ['hf_ inside a method name', '- (id)hf_requiredCharacteristicTypesForDisplayMetadata;'],
  ['numeric id under a key name', 'sequenceKey = "18"'],
  ['prose: password requirement', 'The password is required and must be at least 12 characters long.'],
  ['prose: key idea', 'The key is understanding how tokens work: a token is a unit of text.'],
  ['Discord-shaped string whose id is not numeric', `${b64url('not-a-snowflake-id')}.${r(B64URL, 6)}.${r(B64URL, 38)}`],
  ['service name with a short id', 'spotify: 4uLU6hMCjMI75M1A2tKUQC'],
  ['Basic auth placeholder', 'curl -H "Authorization: Basic ..." https://api'],
  ['Bearer env var', 'curl -H "Authorization: Bearer $API_KEY" https://api'],
];

describe('secrets.native ignores look-alikes', () => {
  it.each(NEGATIVES)('%s', (_name, text) => {
    expect(detect(text)).toEqual([]);
  });
});

const MB = 1024 * 1024;
const ADVERSARIAL: Array<[string, () => string]> = [
  ['1 MB of "a"', () => 'a'.repeat(MB)],
  ['1 MB of "-----BEGIN "', () => '-----BEGIN '.repeat(Math.ceil(MB / 11))],
  ['100k repetitions of "sk-"', () => 'sk-'.repeat(100_000)],
  ['deeply nested brackets', () => '['.repeat(MB / 2) + ']'.repeat(MB / 2)],
  ['deeply nested JSON objects', () => '{"key":'.repeat(MB / 7)],
  ['repeated key= assignments', () => 'key='.repeat(MB / 4)],
  ['repeated token: " openings', () => 'token: "'.repeat(MB / 8)],
  ['repeated JWT prefixes', () => 'eyJhbGciOi.'.repeat(MB / 11)],
  ['repeated URL credential openings', () => 'http://a:b@'.repeat(MB / 11)],
  ['1 MB of "A"', () => 'A'.repeat(MB)],
  ['1 MB of base64-like text', () => r(`${ALNUM}+/`, MB)],
  ['1 MB of dashes', () => '-'.repeat(MB)],
  ['repeated Telegram openings', () => '12345678:AA'.repeat(MB / 11)],
  ['repeated Azure secret openings', () => 'abc1Q~'.repeat(MB / 6)],
  ['1 MB of PEM headers without END lines', () => '-----BEGIN RSA PRIVATE KEY-----\n'.repeat(MB / 32)],
  ['repeated RSAKeyValue openings', () => '<RSAKeyValue><D>'.repeat(MB / 16)],
  ['repeated PuTTY private-lines headers', () => 'Private-Lines: 1 '.repeat(MB / 17)],
  ['repeated SAS query openings', () => '?sv=2020-01-01&'.repeat(MB / 15)],
  ['repeated curl -u flags', () => 'curl -u a: '.repeat(MB / 11)],
  ['repeated Basic headers', () => 'Authorization: Basic '.repeat(MB / 21)],
  ['JWT openings glued by dashes', () => 'eyJhbGciOi-'.repeat(MB / 11)],
  ['one 1 MB identifier made of key words', () => 'keytoken'.repeat(MB / 8)],
  ['URL credential opening with a colon-only tail', () => `http://user:${'a:'.repeat(MB / 2)}`],
  ['scheme openings', () => 'x://'.repeat(MB / 4)],
  ['repeated GitHub prefixes', () => 'ghp_'.repeat(MB / 4)],
  ['prose full of keyword words', () => 'the api key secret token password is here and there '.repeat(MB / 52)],
];

describe('secrets.native stays linear on adversarial input', () => {
  it.each(ADVERSARIAL)('%s', (_name, make) => {
    const text = make();
    // Warm regex compilation and the JIT on a 64 KB slice so the timing measures scanning.
    detect(text.slice(0, 65_536));
    const started = performance.now();
    const found = detect(text);
    const elapsed = performance.now() - started;
    expect(found).toEqual([]);
    expect(elapsed).toBeLessThan(LINEAR_BOUND_MS);
  });

  it('scans 1 MB of realistic mixed text with one secret quickly', () => {
    const token = `ghp_${r(ALNUM, 36)}`;
    const line = 'The quick brown fox configured api_version = 2 and the endpoint https://example.com/v1 today.\n';
    const half = line.repeat(Math.floor(MB / line.length / 2));
    const text = `${half}GITHUB_TOKEN=${token}\n${half}`;
    detect(text.slice(0, 2000));
    const started = performance.now();
    const found = detect(text);
    const elapsed = performance.now() - started;
    console.log(`secrets.native: 1 MB mixed text in ${elapsed.toFixed(1)} ms`);
    expect(found).toHaveLength(1);
    expect(text.slice(found[0]?.start, found[0]?.end)).toBe(token);
    expect(elapsed).toBeLessThan(LINEAR_BOUND_MS);
  });

  it('bounds the work on 1 MB of distinct key-like assignments', () => {
    const lines: string[] = [];
    for (let size = 0; size < MB; ) {
      const line = `token=${r(ALNUM, 24)}\n`;
      lines.push(line);
      size += line.length;
    }
    const text = lines.join('');
    detect(text.slice(0, 65_536));
    const started = performance.now();
    const found = detect(text);
    const elapsed = performance.now() - started;
    expect(found.length).toBeGreaterThan(1000);
    expect(elapsed).toBeLessThan(LINEAR_BOUND_MS);
  });

  it('stops early once the deadline has passed', () => {
    const text = `${'word '.repeat(1000)}ghp_${r(ALNUM, 36)}`;
    const result = secretsNative.detect(text, { ...context, deadline: Date.now() - 1 });
    expect(Array.isArray(result)).toBe(true);
  });
});

// The fixture (test/fixtures/datasets) is a stratified subset of the gitleaks set; `npm run bench`
// scores the full development set.
describe('secrets.native on the development-set fixture', () => {
  it('reaches F1 ≥ 0.95 and reports per-type recall', () => {
    const cases = loadDataset(DATASET_FILES.secrets, FIXTURE_DIR);
    const outcomes: Array<{ positive: boolean; flagged: boolean }> = [];
    const perType = new Map<string, { found: number; total: number }>();
    for (const c of cases) {
      const found = detect(c.text);
      const flagged = found.some((d) => counts(d, 'SECRET.', c.scope));
      const positive = c.label === 'secret';
      outcomes.push({ positive, flagged });
      if (positive) {
        for (const type of c.entities) {
          const entry = perType.get(type) ?? { found: 0, total: 0 };
          entry.total += 1;
          if (found.some((d) => d.entity === type)) entry.found += 1;
          perType.set(type, entry);
        }
      }
    }
    const result = score(outcomes);
    const recallByType = Object.fromEntries(
      [...perType].sort(([a], [b]) => a.localeCompare(b)).map(([type, { found, total }]) => [type, `${found}/${total} = ${(found / total).toFixed(3)}`]),
    );
    console.log('secrets.native dev set:', JSON.stringify(result, null, 1));
    console.log('secrets.native per-type recall:', JSON.stringify(recallByType, null, 1));
    expect(result.f1).toBeGreaterThanOrEqual(0.95);
  });
});
