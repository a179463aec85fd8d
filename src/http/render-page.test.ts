import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { h } from 'preact';
import { Layout } from '../views/layout.js';
import { asPage, useI18n } from '../views/page-context.js';
import { renderPage } from './render-page.js';

/** A page written without the catalogue: its words are English, so its frame must be too. */
const PlainPage = () => h(Layout, { title: 'Plain', children: h('h1', null, 'Plain English words') });
/** A page written with the catalogue (asPage): in the person's language. */
const CataloguePage = asPage(() => h(Layout, { title: 'Catalogue', children: h('h1', null, useI18n().t('layout.skip')) }));

async function render(page: 'plain' | 'catalogue', acceptLanguage: string) {
  const app = Fastify();
  app.get('/', (_request, reply) => renderPage(reply, page === 'plain' ? h(PlainPage, {}) : CataloguePage({})));
  try {
    const response = await app.inject({ method: 'GET', url: '/', headers: { 'accept-language': acceptLanguage } });
    return { status: response.statusCode, language: response.headers['content-language'], body: response.body };
  } finally {
    await app.close();
  }
}

test('a page written without the catalogue is English throughout for a German reader: frame, <html lang> and Content-Language', async () => {
  const page = await render('plain', 'de-DE,de;q=0.9');
  assert.equal(page.status, 200);
  assert.equal(page.language, 'en');
  assert.match(page.body, /<html lang="en"/);
  assert.match(page.body, /Skip to content/);
  assert.doesNotMatch(page.body, /Zum Inhalt springen/);
});

test('a page written with the catalogue is in the reader’s language, frame included', async () => {
  const page = await render('catalogue', 'de-DE,de;q=0.9');
  assert.equal(page.language, 'de');
  assert.match(page.body, /<html lang="de"/);
  assert.match(page.body, /Zum Inhalt springen/);
  assert.doesNotMatch(page.body, /Skip to content/);
  assert.equal((await render('catalogue', 'en')).language, 'en');
});
