import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Database } from '../../db/client.ts';
import type { CompanyService } from '../companies/companies.service.ts';
import type { NameMatch } from './name-search.ts';
import { createScannerService, pluSpellings, rankMatches } from './scanner.service.ts';

const match = (id: number, score: number): NameMatch => ({
  score,
  row: {
    id,
    name: `P${id}`,
    description: '',
    bc: null,
    basePrice: '1.00',
    photo: null,
    mark: null,
    categoryId: null,
    enable: true,
  },
});

describe('rankMatches', () => {
  it("keeps the index's order, 1 + 5 at most, and drops alternatives too weak to offer", () => {
    const ranked = rankMatches([0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.35].map((score, i) => match(i + 1, score)));
    expect(ranked.map((m) => m.row.id)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(rankMatches([match(1, 0.9), match(2, 0.29)]).map((m) => m.row.id)).toEqual([1]);
  });

  it('answers nothing when even the best is too weak', () => {
    expect(rankMatches([match(1, 0.44), match(2, 0.4)])).toEqual([]);
    expect(rankMatches([])).toEqual([]);
  });
});

describe('pluSpellings', () => {
  it('tries a typed PLU as typed, without its leading zeros and padded to 5 digits', () => {
    expect(pluSpellings('00107')).toEqual(['00107', '107']);
    expect(pluSpellings('107')).toEqual(['107', '00107']);
    expect(pluSpellings('12345')).toEqual(['12345']);
  });
});

describe('the scanner token cache', () => {
  it("keeps a shop's token cached through a flood of made-up tokens (each asked once)", async () => {
    const asked: string[] = [];
    const companies = {
      findCompanyIdByScannerToken: async (token: string) => {
        asked.push(token);
        return token === 'mos_scn_real' ? 7 : null;
      },
    } as unknown as CompanyService;
    const scanner = createScannerService({
      db: { orm: {} } as unknown as Database,
      companies,
      clock: { now: () => new Date() },
      logger: pino({ level: 'silent' }),
      rateLimitPerMinute: 0,
    });
    expect(await scanner.tokenCompany('mos_scn_real')).toBe(7);
    for (let n = 0; n < 12_000; n++) expect(await scanner.tokenCompany(`mos_scn_fake_${n}`)).toBeNull();
    expect(await scanner.tokenCompany('mos_scn_fake_11999')).toBeNull();
    asked.length = 0;
    expect(await scanner.tokenCompany('mos_scn_real')).toBe(7);
    expect(await scanner.tokenCompany('mos_scn_fake_11999')).toBeNull();
    expect(asked).toEqual([]);
  });
});
