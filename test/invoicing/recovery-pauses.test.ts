import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { recoveryPauses } from '../../src/modules/invoicing/arca-access.ts';

const base = { SECRET_KEY: 'x'.repeat(40), DATA_DIR: '.tmp/test-data' };

describe('ARCA_RECOVERY_PAUSE_MS (the pauses of a lost answer’s recovery)', () => {
  it('is 250 ms unless set, and the pauses after it are 3, 6 and 12 times as long', () => {
    expect(loadConfig(base).arca.recoveryPauseMs).toBe(250);
    expect(recoveryPauses(loadConfig(base).arca.recoveryPauseMs)).toEqual([250, 750, 1500, 3000]);
    expect(recoveryPauses(loadConfig({ ...base, ARCA_RECOVERY_PAUSE_MS: '10' }).arca.recoveryPauseMs)).toEqual([10, 30, 60, 120]);
  });

  it('refuses a value that is not a whole number of milliseconds between 1 and 10000, naming it', () => {
    for (const bad of ['0', '-5', '10001', 'abc', '1.5']) {
      expect(() => loadConfig({ ...base, ARCA_RECOVERY_PAUSE_MS: bad }), bad).toThrow(ConfigError);
      expect(() => loadConfig({ ...base, ARCA_RECOVERY_PAUSE_MS: bad }), bad).toThrow(/ARCA_RECOVERY_PAUSE_MS/);
    }
  });
});
