// Held-out shapes for secrets.native: secrets as they sit in ordinary config and code (env files,
// YAML, JSON, code assignments, URLs with credentials, Authorization headers, PEM inside JSON
// strings), and benign high-entropy look-alikes (UUIDs, digests, SRI hashes, git SHAs, trace ids,
// data: URIs, placeholders) that must stay quiet. Values are generated at run time.
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { Detection } from '../types.js';
import { detectSecrets } from './native.js';
import { VENDOR_FORMATS } from './gitleaks-data.js';
import { LINEAR_BOUND_MS } from '../../../../test/helpers/linear.js';

let seed = 0x1234;
// mulberry32: deterministic fake values, so this file carries no token-shaped literals.
function random(): number { seed = (seed + 0x6d2b79f5) | 0; let t = Math.imul(seed ^ (seed >>> 15), 1 | seed); t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t; return ((t ^ (t >>> 14)) >>> 0) / 4294967296; }
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const B64URL = `${ALNUM}-_`, HEX = '0123456789abcdef', BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', D = '0123456789';
const r = (a: string, n: number) => { let o = ''; for (let i = 0; i < n; i++) o += a[Math.floor(random() * a.length)]; return o; };
const b64u = (v: string) => Buffer.from(v).toString('base64url');
const jwt = () => `${b64u(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${b64u(JSON.stringify({ sub: '1234567890', name: 'John', iat: 1516239022 }))}.${r(B64URL, 43)}`;
const slackHook = () => `https://hooks.slack.com/services/T${r('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', 8)}/B${r('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', 10)}/${r(ALNUM, 24)}`;
const pemBody = Array.from({ length: 6 }, () => r(`${ALNUM}+/`, 64)).join('\\n');
const akid = `AKIA${r(BASE32, 16)}`, awsSecret = r(`${ALNUM}+/`, 40);
const pos: [string, string][] = [
  ['CHAT', `SLACK_WEBHOOK_URL=${slackHook()}`],
  ['CHAT', `slack:\n  webhook: "${slackHook()}"`],
  ['CHAT', `{"webhook_url": "${slackHook()}"}`],
  ['CHAT', `requests.post("${slackHook()}", json=payload)`],
  ['CHAT', `SLACK_BOT_TOKEN=xoxb-${r(D, 12)}-${r(D, 13)}-${r(ALNUM, 24)}`],
  ['CHAT', `token: xoxp-${r(D, 11)}-${r(D, 11)}-${r(D, 12)}-${r(HEX, 32)}`],
  ['CHAT', `"slack_token": "xoxb-${r(D, 11)}-${r(ALNUM, 24)}"`],
  ['CHAT', `DISCORD_WEBHOOK=https://discord.com/api/webhooks/${r(D, 18)}/${r(B64URL, 68)}`],
  ['CHAT', `discord_token = "${b64u(r(D, 18))}.${r(B64URL, 6)}.${r(B64URL, 27)}"`],
  ['CHAT', `TELEGRAM_BOT_TOKEN=${r(D, 10)}:AA${r(B64URL, 33)}`],
  ['CHAT', `bot = telebot.TeleBot("${r(D, 9)}:AA${r(B64URL, 33)}")`],
  ['CHAT', `teams_webhook: https://contoso.webhook.office.com/webhookb2/${r(HEX,8)}-${r(HEX,4)}-${r(HEX,4)}-${r(HEX,4)}-${r(HEX,12)}@${r(HEX,8)}-${r(HEX,4)}-${r(HEX,4)}-${r(HEX,4)}-${r(HEX,12)}/IncomingWebhook/${r(HEX,32)}/${r(HEX,8)}-${r(HEX,4)}-${r(HEX,4)}-${r(HEX,4)}-${r(HEX,12)}`],
  ['CHAT', `MATTERMOST_HOOK=https://chat.example.org/hooks/${r('abcdefghijklmnopqrstuvwxyz0123456789', 26)}`],
  ['CHAT', `https://hooks.slack.com/workflows/T${r('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', 8)}/A${r('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', 10)}/${r(D,18)}/${r(ALNUM, 24)}`],
  ['CHAT', `SLACK_APP_TOKEN=xapp-1-A${r('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', 10)}-${r(D, 13)}-${r(HEX, 64)}`],
  ['CLOUD', `AWS_ACCESS_KEY_ID=${akid}\nAWS_SECRET_ACCESS_KEY=${awsSecret}`],
  ['CLOUD', `[default]\naws_access_key_id = ${akid}\naws_secret_access_key = ${awsSecret}`],
  ['CLOUD', `{"AccessKeyId": "${akid}", "SecretAccessKey": "${awsSecret}"}`],
  ['CLOUD', `s3 = boto3.client("s3", aws_access_key_id="${akid}", aws_secret_access_key="${awsSecret}")`],
  ['CLOUD', `aws:\n  access_key: ${akid}\n  secret_key: ${awsSecret}`],
  ['CLOUD', `const creds = { accessKeyId: '${akid}', secretAccessKey: '${awsSecret}' };`],
  ['CLOUD', `secret_key = "${awsSecret}"  # aws`],
  ['CLOUD', `AWS_SECRET_KEY: ${awsSecret}`],
  ['CLOUD', `AZURE_CLIENT_SECRET=${r(ALNUM,3)}8Q~${r(ALNUM+'_.-',34)}`],
  ['CLOUD', `AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=https;AccountName=myacct;AccountKey=${r(ALNUM+'+/',86)}==;EndpointSuffix=core.windows.net"`],
  ['CLOUD', `GOOGLE_API_KEY=AIza${r(B64URL, 35)}`],
  ['CLOUD', `{"type": "service_account", "project_id": "p", "private_key_id": "${r(HEX,40)}", "private_key": "-----BEGIN PRIVATE KEY-----\\n${pemBody}\\n-----END PRIVATE KEY-----\\n", "client_email": "a@p.iam.gserviceaccount.com"}`],
  ['CLOUD', `heroku_api_key = "${r(HEX,8)}-${r(HEX,4)}-${r(HEX,4)}-${r(HEX,4)}-${r(HEX,12)}"`],
  ['CLOUD', `DIGITALOCEAN_TOKEN=dop_v1_${r(HEX,64)}`],
  ['CLOUD', `aws_session_token = "IQoJb3JpZ2luX2VjE${r(ALNUM+'/+', 300)}"`],
  ['CLOUD', `ALIBABA_CLOUD_ACCESS_KEY_SECRET=${r(ALNUM, 30)}`],
  ['CLOUD', `-e AWS_SECRET_ACCESS_KEY=${awsSecret} -e AWS_ACCESS_KEY_ID=${akid}`],
  ['JWT', `Authorization: Bearer ${jwt()}`],
  ['JWT', `{"access_token": "${jwt()}", "token_type": "Bearer"}`],
  ['JWT', `JWT_TOKEN=${jwt()}`],
  ['JWT', `curl -H "Authorization: Bearer ${jwt()}" https://api.example.com/v1/me`],
  ['JWT', `const token = '${jwt()}';`],
  ['JWT', `https://app.example.com/callback?id_token=${jwt()}&state=abc`],
  ['JWT', `Cookie: session=${jwt()}; Path=/`],
  ['JWT', `headers = {"Authorization": f"Bearer ${jwt()}"}`],
  ['JWT', `jwt: ${b64u(JSON.stringify({ typ: 'JWT', alg: 'RS256', kid: 'abc' }))}.${b64u(JSON.stringify({ iss: 'https://x', exp: 1900000000 }))}.${r(B64URL, 342)}`],
  ['CONN', `DATABASE_URL=postgres://app:${r(ALNUM, 16)}@db.internal:5432/app`],
  ['CONN', `spring.datasource.url=jdbc:mysql://db:3306/app\nspring.datasource.username=app\nspring.datasource.password=${r(ALNUM, 14)}`],
  ['CONN', `"ConnectionStrings": {"Default": "Server=tcp:myserver.database.windows.net,1433;Database=app;User ID=admin;Password=${r(ALNUM, 14)};Encrypt=True"}`],
  ['CONN', `MONGO_URI="mongodb+srv://admin:${r(ALNUM, 12)}@cluster0.ab1cd.mongodb.net/test?retryWrites=true"`],
  ['CONN', `redis_url: redis://:${r(ALNUM, 20)}@redis.internal:6379/0`],
  ['CONN', `amqp://guest:${r(ALNUM, 12)}@rabbit:5672/`],
  ['CONN', `engine = create_engine("mysql+pymysql://root:${r(ALNUM, 12)}@localhost/db")`],
  ['CONN', `Data Source=sql01;Initial Catalog=Sales;User Id=sa;Password=${r(ALNUM, 12)};`],
  ['CONN', `psql "host=db.prod port=5432 dbname=app user=app password=${r(ALNUM, 14)}"`],
  ['CONN', `db:\n  host: db.internal\n  user: app\n  password: ${r(ALNUM, 14)}`],
  ['CONN', `git clone https://oauth2:${r(ALNUM, 20)}@gitlab.com/group/repo.git`],
  ['CONN', `DATABASE_URL=postgresql://user:${r(ALNUM,8)}%40${r(ALNUM,6)}@10.0.0.5/db`],
  ['PK', `{"key": "-----BEGIN RSA PRIVATE KEY-----\\n${pemBody}\\n-----END RSA PRIVATE KEY-----"}`],
  ['PK', `ssh_key: |\n  -----BEGIN OPENSSH PRIVATE KEY-----\n  ${r(ALNUM,70)}\n  ${r(ALNUM,70)}\n  -----END OPENSSH PRIVATE KEY-----`],
  ['PK', `-----BEGIN EC PRIVATE KEY-----\n${r(ALNUM,64)}\n${r(ALNUM,40)}==\n-----END EC PRIVATE KEY-----`],
  ['CODE', `GITHUB_TOKEN=ghp_${r(ALNUM, 36)}`],
  ['CODE', `//registry.npmjs.org/:_authToken=npm_${r(ALNUM, 36)}`],
  ['CODE', `git remote set-url origin https://x-access-token:ghs_${r(ALNUM, 36)}@github.com/o/r.git`],
  ['MODEL', `client = OpenAI(api_key="sk-proj-${r(B64URL, 74)}T3BlbkFJ${r(B64URL, 74)}")`],
  ['MODEL', `ANTHROPIC_API_KEY=sk-ant-api03-${r(B64URL, 93)}AA`],
  ['PAY', `stripe.api_key = "sk_live_${r(ALNUM, 24)}"`],
  ['PAY', `STRIPE_SECRET_KEY=rk_live_${r(ALNUM, 99)}`],
  ['GEN', `Authorization: Bearer ${r(ALNUM, 40)}`],
  ['GEN', `X-API-Key: ${r(ALNUM, 32)}`],
  ['GEN', `api_key = "${r(ALNUM, 32)}"`],
  ['GEN', `SENDGRID_API_KEY=SG.${r(B64URL, 22)}.${r(B64URL, 43)}`],
  ['JWT', `${b64u('{ "alg": "HS256", "typ": "JWT" }')}.${b64u('{ "sub": "42" }')}.${r(B64URL, 43)}`],
  ['JWT', `${b64u('{\r\n  "alg": "RS256"\r\n}')}.${b64u('{\r\n  "sub": "1"\r\n}')}.${r(B64URL, 86)}`],
  ['JWT', `id_token=${b64u('{"alg":"RSA-OAEP","enc":"A256GCM"}')}.${r(B64URL, 342)}.${r(B64URL, 16)}.${r(B64URL, 120)}.${r(B64URL, 22)}`],
  ['CHAT', `ROCKETCHAT_WEBHOOK=https://chat.acme.io/hooks/${r(ALNUM, 17)}/${r(ALNUM, 48)}`],
  ['CLOUD', `s3:\n  access_key_id: ${akid}\n  secret_key: ${r(`${ALNUM}+/`, 19)}/${r(`${ALNUM}+/`, 20)}`],
  ['CONN', `DB_PASSWORD=${r(ALNUM, 10)}!${r(ALNUM, 5)}`],
  ['GEN', `Authorization: Basic ${Buffer.from('admin:' + r(ALNUM, 12)).toString('base64')}`],
];
const uuid = () => `${r(HEX,8)}-${r(HEX,4)}-4${r(HEX,3)}-a${r(HEX,3)}-${r(HEX,12)}`;
const neg: string[] = [
  `request_id: ${uuid()}`, `"id": "${uuid()}"`, `correlationId=${uuid()}`, `tenant_id = "${uuid()}"`, `client_id: ${uuid()}`,
  `commit ${r(HEX, 40)}\nAuthor: Jane <j@x.org>`, `git checkout ${r(HEX, 40)}`, `"sha": "${r(HEX, 40)}"`, `revision: ${r(HEX, 40)}`,
  `sha256sum: ${r(HEX, 64)}  file.tar.gz`, `image: nginx@sha256:${r(HEX, 64)}`, `"checksum": "${r(HEX, 64)}"`, `md5: ${r(HEX, 32)}`, `etag: "${r(HEX, 32)}"`,
  `"integrity": "sha512-${r(ALNUM + '+/', 86)}=="`, `<script src="x.js" integrity="sha384-${r(ALNUM + '+/', 64)}" crossorigin="anonymous"></script>`,
  `resolved "https://registry.yarnpkg.com/x/-/x-1.0.0.tgz#${r(HEX, 40)}"\n  integrity sha512-${r(ALNUM + '+/', 86)}==`,
  `traceparent: 00-${r(HEX, 32)}-${r(HEX, 16)}-01`, `X-Amzn-Trace-Id: Root=1-${r(HEX, 8)}-${r(HEX, 24)}`, `{"trace_id":"${r(HEX,32)}","span_id":"${r(HEX,16)}"}`, `dd.trace_id=${r(D,19)} dd.span_id=${r(D,19)}`,
  `<img src="data:image/png;base64,${r(ALNUM + '+/', 200)}=">`, `background: url(data:image/svg+xml;base64,${r(ALNUM + '+/', 120)})`,
  `OPENAI_API_KEY=sk-...`, `OPENAI_API_KEY=sk-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx`, `api_key: <your-api-key>`, `API_KEY="your-api-key-here"`, `token: "<YOUR_TOKEN>"`,
  `AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\nAWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY`, `sk-proj-...EXAMPLE`, `export GITHUB_TOKEN=ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX`,
  `password: ********`, `password = os.environ["DB_PASSWORD"]`, `DATABASE_URL=postgres://user:password@localhost:5432/db`, `postgres://postgres:postgres@localhost/test`,
  `SLACK_WEBHOOK_URL=https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX`, `commit_sha: ${r(HEX, 40)}`,
  `nonce="${r(ALNUM + '+/', 22)}=="`, `"salt": "${r(HEX, 32)}"`, `session_id=${r(HEX, 32)}`, `"key": "${uuid()}"`, `cache_key: ${r(HEX, 64)}`,
  `apiVersion: v1\nkind: Secret\ndata:\n  username: YWRtaW4=`, `"publicKey": "${r(ALNUM+'+/', 44)}"`, `ssh-rsa AAAAB3NzaC1yc2E${r(ALNUM+'+/', 300)} user@host`,
  `-----BEGIN CERTIFICATE-----\n${r(ALNUM,64)}\n-----END CERTIFICATE-----`, `-----BEGIN PUBLIC KEY-----\n${r(ALNUM,64)}\n-----END PUBLIC KEY-----`,
  `Bearer <token>`, `Authorization: Bearer $TOKEN`, `Authorization: Bearer {{access_token}}`, `ETH address 0x${r(HEX, 40)}`, `tx hash 0x${r(HEX, 64)}`,
  `"sourceMappingURL=data:application/json;base64,${r(ALNUM+'+/', 150)}"`, `version: 1.2.3\nbuild: ${r(HEX, 7)}`, `go.sum: h1:${r(ALNUM+'+/', 43)}=`, `x-request-id: ${r(HEX,32)}`,
  `{"kid": "${r(B64URL, 43)}"}`, `secret_name: prod/db/credentials`, `token_url: https://auth.example.com/oauth/token`, `key_id: ${uuid()}`,
];

const TYPE: Record<string, string> = {
  CHAT: 'SECRET.CHAT_TOOL_TOKEN',
  CLOUD: 'SECRET.CLOUD_ACCESS_KEY',
  JWT: 'SECRET.JWT',
  CONN: 'SECRET.CONNECTION_STRING',
  PK: 'SECRET.PRIVATE_KEY',
  CODE: 'SECRET.CODE_HOST_TOKEN',
  MODEL: 'SECRET.MODEL_API_KEY',
  PAY: 'SECRET.PAYMENT_KEY',
};
const secretsIn = (text: string): Detection[] => detectSecrets(text).filter((d) => d.entity.startsWith('SECRET.'));

describe('secrets.native on config and code shapes', () => {
  it.each(pos.map(([kind, text], i) => [`${kind} #${i}`, kind, text] as const))('flags %s', (_label, kind, text) => {
    expect(secretsIn(text).length).toBeGreaterThan(0);
  });

  // The baseline pack blocks secrets at 0.9: a validated secret in config must reach it.
  it('scores validated config secrets at the blocking threshold with the exact type', () => {
    const below = pos.filter(([kind, text]) => {
      const expected = TYPE[kind] ?? 'SECRET.GENERIC';
      return !secretsIn(text).some((d) => d.score >= 0.9 && d.entity === expected);
    });
    // Only the service-account file without its own key finding may fall short (its PEM blocks).
    expect(below.map(([kind, text]) => `${kind}: ${text.slice(0, 60)}`)).toEqual([expect.stringContaining('service_account')]);
  });

  it('types most findings with the exact neutral type', () => {
    let typed = 0;
    let total = 0;
    for (const [kind, text] of pos) {
      const expected = TYPE[kind];
      if (expected === undefined) continue;
      total += 1;
      if (secretsIn(text).some((d) => d.entity === expected)) typed += 1;
    }
    expect(typed / total).toBeGreaterThanOrEqual(0.9);
  });
});

describe('secrets.native on benign look-alikes', () => {
  it.each(neg.map((text, i) => [i, text] as const))('stays quiet on look-alike #%i', (_i, text) => {
    expect(secretsIn(text).map((d) => text.slice(d.start, d.end))).toEqual([]);
  });

  it('keeps placeholder and documentation tokens out', () => {
    const quiet = [
      `ANTHROPIC_API_KEY=sk-ant-api03-${'abcdefghij'.repeat(9)}abcAA`,
      `-----BEGIN PRIVATE KEY-----\n${Buffer.from('this is not a key, only some text for a sample').toString('base64')}\n-----END PRIVATE KEY-----`,
      'mongodb://mongodb:mongodb@localhost:27017/app',
      'https://admin:1111@service.example.net',
      `"key": "${r(HEX, 64)}"`,
      `sourceKey: ${r(HEX, 24)}`,
      `secret_arn: arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-${r(ALNUM, 6)}`,
      `"key": "${uuid()}"`,
    ];
    for (const text of quiet) expect(secretsIn(text)).toEqual([]);
  });
});

describe('gitleaks vendor formats', () => {
  it('compiles every format with re2js and checks whole values', () => {
    expect(VENDOR_FORMATS.length).toBeGreaterThan(20);
    const meraki = VENDOR_FORMATS.find((f) => f.rule === 'cisco-meraki-api-key');
    expect(meraki?.compiled.matches(r(HEX, 40))).toBe(true);
    expect(meraki?.compiled.matches(`${r(HEX, 40)}x`)).toBe(false);
  });

  it('accepts a vendor-format value under a vendor name with no secret word', () => {
    const found = secretsIn(`sumologic.accessId = "su${r(ALNUM, 12)}"`);
    expect(found.length).toBe(1);
  });

  it('ignores vendor words inside other words and values outside the vendor format', () => {
    expect(secretsIn(`sumOfExposures = ${r(ALNUM, 64)};`)).toEqual([]);
    expect(secretsIn(`ReactNativeCameraKit: ${r(HEX, 40)}`)).toEqual([]);
    expect(secretsIn(`meraki: ${r(ALNUM, 12)}-${r(ALNUM, 30)}`)).toEqual([]);
  });

  it('stays linear on 1 MB of vendor-keyword assignments', () => {
    // Values just outside the vendor format: every line runs the format check and is dropped.
    const line = `sumologic: su${r(ALNUM, 12)}x-${r(ALNUM, 8)}\n`;
    const text = line.repeat(Math.ceil(1_000_000 / line.length));
    const time = (input: string): number => {
      const started = performance.now();
      detectSecrets(input);
      return performance.now() - started;
    };
    time(text.slice(0, 50_000)); // warm the code paths first
    const fifth = time(text.slice(0, 200_000));
    const whole = time(text);
    // Five times the input: linear work takes about five times as long, quadratic twenty-five.
    expect(whole).toBeLessThan(Math.max(LINEAR_BOUND_MS, 12 * fifth));
  });
});

describe('provider checksums', () => {
  const B62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  const checksum = (body: string): string => {
    let value = crc32(body);
    let out = '';
    while (value > 0) {
      out = B62[value % 62] + out;
      value = Math.floor(value / 62);
    }
    return out.padStart(6, '0');
  };

  it('raises confidence when a GitHub-style token carries a valid CRC32', () => {
    const body = r(ALNUM, 30);
    const [found] = secretsIn(`GITHUB_TOKEN=ghp_${body}${checksum(body)}`);
    expect(found?.score).toBeGreaterThanOrEqual(0.99);
    expect(found?.validator).toContain('checksum verified');
  });

  it('still reports a token whose checksum does not verify (fixtures, docs), at the format score', () => {
    const body = r(ALNUM, 30);
    const wrong = checksum(body) === '000000' ? '000001' : '000000';
    const [found] = secretsIn(`GITHUB_TOKEN=ghp_${body}${wrong}`);
    expect(found?.entity).toBe('SECRET.CODE_HOST_TOKEN');
    expect(found?.score).toBeLessThan(0.99);
  });
});
