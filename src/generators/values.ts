/**
 * Realistic code lists (../shared/domain-notes.md). The spec lists no allowed values for these
 * fields (§2.9 note 3), so they are realism only: no rule depends on them.
 */
export const BANK_CODES = ['RJHI', 'NCBK', 'RIBL', 'SABB', 'BSFR', 'ARNB', 'ALBI', 'INMA'] as const;

export interface Biller { id: string; name: string; categories: string[]; accountLength: [number, number]; serviceType: string; paymentType: string }

export const BILLERS: Biller[] = [
  { id: '001', name: 'Telecom', categories: ['GSN', 'LLN'], accountLength: [11, 11], serviceType: 'POST', paymentType: 'postpaid' },
  { id: '002', name: 'Electricity', categories: ['ELCT'], accountLength: [8, 15], serviceType: 'POST', paymentType: 'postpaid' },
  { id: '005', name: 'Mobile telecom', categories: ['GSH', 'LLH'], accountLength: [11, 11], serviceType: 'POST', paymentType: 'prepaid' },
  { id: '044', name: 'Telecom', categories: ['GSN'], accountLength: [11, 11], serviceType: 'POST', paymentType: 'postpaid' },
  { id: '008', name: 'Education', categories: ['EDU'], accountLength: [8, 12], serviceType: 'GOVT', paymentType: 'postpaid' },
];

export interface MinistryBiller { id: string; category: string; requestTypes: string[] }

export const MOI_BILLERS: MinistryBiller[] = [
  { id: '090', category: 'ALIEN', requestTypes: ['01', '02', '03', '04', '05', '06', '07', '08', '12', '38', '39'] },
  { id: '091', category: 'DRVLIC', requestTypes: ['02', '03'] },
  { id: '092', category: 'PASSPRT', requestTypes: ['37', '04', '05'] },
  { id: '093', category: 'TRAFFIC', requestTypes: ['01'] },
  { id: '094', category: 'MVEHICLE', requestTypes: ['02', '03'] },
];

/** Proof-of-identity types with 10-digit numbers: national id starts with 1, iqama with 2. */
export const POI_TYPES = [{ code: 'NAT', lead: '1' }, { code: 'IQA', lead: '2' }] as const;
export const JOB_CATEGORIES = ['06', '20', '21', '22', '23'] as const;
export const DURATIONS_MONTHS = [3, 6, 9, 12, 24] as const;
export const DEVICES = ['Web', 'IOS', 'Android'] as const;
