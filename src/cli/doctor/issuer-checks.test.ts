/**
 * The issuer, proxy and development-mode rules of `latch doctor`, one situation per row: which findings (check
 * and level) a configuration gives, and what the problem's fix says.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkIssuer, isLoopbackHost, type IssuerSettings } from './issuer-checks.js';

const BASE: IssuerSettings = { issuer: 'http://localhost:3000', host: '127.0.0.1', port: 3000, trustProxy: false, developmentMode: false };

describe('checkIssuer', () => {
  const rows: { situation: string; settings: Partial<IssuerSettings>; expect: string[]; fix?: RegExp }[] = [
    { situation: 'the default: a local http issuer is a development setup', settings: {}, expect: ['issuer:note'] },
    { situation: 'http on 127.0.0.1 is local too', settings: { issuer: 'http://127.0.0.1:8080' }, expect: ['issuer:note'] },
    {
      situation: 'RFC 8414 §2: http on a public host without dev mode, Latch listening on every interface: put TLS in front',
      settings: { issuer: 'http://auth.example.com', host: '0.0.0.0' },
      expect: ['issuer:problem'],
      fix: /Put a TLS-terminating reverse proxy .* LATCH_ISSUER=https:\/\/auth\.example\.com and LATCH_TRUST_PROXY=1/,
    },
    {
      situation: 'http issuer behind TLS: HOST on loopback means a proxy on this machine, so only the issuer may be wrong',
      settings: { issuer: 'http://auth.example.com', host: '127.0.0.1' },
      expect: ['issuer:problem'],
      fix: /HOST is 127\.0\.0\.1, so a proxy on this machine .* only the issuer is wrong: set LATCH_ISSUER=https:\/\/auth\.example\.com and LATCH_TRUST_PROXY=1/,
    },
    {
      situation: 'http issuer behind TLS: LATCH_TRUST_PROXY on says a proxy forwards',
      settings: { issuer: 'http://auth.example.com', host: '0.0.0.0', trustProxy: true },
      expect: ['issuer:problem', 'trust-proxy:note'],
      fix: /LATCH_TRUST_PROXY is on, so a proxy forwards to Latch: if it already terminates TLS, only the issuer is wrong: set LATCH_ISSUER=https:\/\/auth\.example\.com\./,
    },
    {
      situation: 'http on a public host in dev mode: a warning for each',
      settings: { issuer: 'http://auth.test', host: '0.0.0.0', developmentMode: true },
      expect: ['issuer:warning', 'dev-mode:warning'],
    },
    {
      situation: 'https without trust-proxy: a proxy on this machine, every request from its address',
      settings: { issuer: 'https://auth.example.com' },
      expect: ['issuer:ok', 'trust-proxy:problem'],
      fix: /Set LATCH_TRUST_PROXY=1/,
    },
    { situation: 'https without trust-proxy, listening on every interface', settings: { issuer: 'https://auth.example.com', host: '0.0.0.0' }, expect: ['issuer:ok', 'trust-proxy:problem'] },
    { situation: 'https behind a local proxy that is trusted: all well', settings: { issuer: 'https://auth.example.com', trustProxy: true }, expect: ['issuer:ok', 'trust-proxy:ok'] },
    {
      situation: 'trust-proxy on every interface: anyone reaching the port may claim an address',
      settings: { issuer: 'https://auth.example.com', host: '0.0.0.0', trustProxy: true },
      expect: ['issuer:ok', 'trust-proxy:note'],
    },
    { situation: 'dev mode with a public https issuer', settings: { issuer: 'https://auth.example.com', trustProxy: true, developmentMode: true }, expect: ['issuer:ok', 'trust-proxy:ok', 'dev-mode:warning'] },
    { situation: 'dev mode on a local issuer is what it is for', settings: { developmentMode: true }, expect: ['issuer:note'] },
  ];
  for (const row of rows) {
    test(row.situation, () => {
      const findings = checkIssuer({ ...BASE, ...row.settings });
      assert.deepEqual(findings.map((f) => `${f.check}:${f.level}`), row.expect);
      if (row.fix) assert.match(findings.find((f) => f.level === 'problem')?.fix ?? '', row.fix);
      for (const finding of findings) assert.ok(finding.level === 'ok' || finding.fix, `${finding.check} says what to do`);
    });
  }
});

describe('isLoopbackHost', () => {
  const rows: [string, boolean][] = [
    ['localhost', true],
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['::1', true],
    ['[::1]', true],
    ['0.0.0.0', false],
    ['::', false],
    ['auth.example.com', false],
    ['10.0.0.1', false],
  ];
  for (const [host, loopback] of rows) test(`${host} is ${loopback ? '' : 'not '}loopback`, () => assert.equal(isLoopbackHost(host), loopback));
});
