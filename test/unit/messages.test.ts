/**
 * Refusals that name what the input IS before what is wrong with it: every class with members
 * beyond the ones first reported, so a rule cannot be an `if` for one example.
 */
import { describe, expect, it } from 'vitest';
import { checkLiquidAddress } from '../../src/domain/liquid/address.js';
import { parseReais, readCents } from '../../src/domain/money.js';

const LQ =
  'lq1qqvxk052kf3qtkxmrakx50a9gc3smqad2ync54hzntjt980kfej9kkfe0247rp5h4yzmdftsahhw64uy8pzfe7cpg4fgykm7cv';
const TLQ =
  'tlq1qqvumj0mqhupymes726sdp0sdlpjtj5h5eqkja4e9lk6atxgat3p49ez5y728m4dzrmnx0rcs7g43p64zded96r7etwq8lmd2e';

function reason(address: string, network: 'liquid' | 'liquidtestnet' | 'elementsregtest' = 'liquid') {
  const r = checkLiquidAddress(address, network);
  return r.ok ? 'accepted' : r.reason;
}

describe('a refused address is named for what it is', () => {
  it.each([
    ['bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', 'a Bitcoin (mainnet) address, not a Liquid one'],
    ['BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', 'a Bitcoin (mainnet) address, not a Liquid one'],
    ['bc1p5d7rjq7g6rdk2yhzks9smlaqtedr4dekq08ge8ztwac72sfr9rusxg3297', 'a Bitcoin (mainnet) address'],
    ['tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx', 'a Bitcoin testnet address, not a Liquid one'],
    ['bcrt1qs758ursh4q9z627kt3pp5yysm78ddny6txaqgw', 'a Bitcoin regtest address, not a Liquid one'],
    ['1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', 'a Bitcoin (mainnet) address, not a Liquid one'],
    ['3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', 'a Bitcoin (mainnet) address, not a Liquid one'],
    ['mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn', 'a Bitcoin testnet address, not a Liquid one'],
    ['2MzQwSSnBHWHqSAqtTVQ6v47XtaisrJa1Vc', 'a Bitcoin testnet address, not a Liquid one'],
  ])('Bitcoin: %s', (address, expected) => {
    expect(reason(address)).toContain(`it is ${expected}`);
  });

  it.each([
    ['ltc1qqurswpc8qurswpc8qurswpc8qurswpc8p4r4uu', 'a Litecoin address, not a Liquid one'],
    ['LTC1QQURSWPC8QURSWPC8QURSWPC8QURSWPC8P4R4UU', 'a Litecoin address, not a Liquid one'],
    [
      'ltc1pqvpsxqcrqvpsxqcrqvpsxqcrqvpsxqcrqvpsxqcrqvpsxqcrqvps0jfwuk',
      'a Litecoin address, not a Liquid one',
    ],
    ['tltc1qpyysjzgfpyysjzgfpyysjzgfpyysjzgfc0nfpw', 'a Litecoin testnet address, not a Liquid one'],
    // any other bech32 address: its prefix names its chain
    [
      'cosmos1q5zs2pg9q5zs2pg9q5zs2pg9q5zs2pg9r8q7pk',
      'a bech32 address of another chain (cosmos1…), not a Liquid one',
    ],
  ])('another chain in bech32: %s', (address, expected) => {
    expect(reason(address)).toBe(`it is ${expected}`);
  });

  it.each([
    ['tex1qu32z09ra6k3paen83ug0y2csa23xukja3fyeyx', 'liquid', 'liquidtestnet'],
    [TLQ, 'liquid', 'liquidtestnet'],
    [LQ, 'liquidtestnet', 'liquid'],
    ['ex1qhuq5u7udzwskhaz45fy80kdaxjytqd99ju5yfn', 'elementsregtest', 'liquid'],
    [
      'el1qqw3e3mk4ng3ks43mh54udznuekaadh9lgwef3mwgzrfzakmdwcvqpe4ppdaa3t44v3zv2u6w56pv6tc666fvgzaclqjnkz0sd',
      'liquid',
      'elementsregtest',
    ],
    [
      'AzppxC5RDs8yB8mabhwS13y4WbsWoS41fLV8GKM4woLUJB5RxNBVfK6wdVX4QVoubRXFKKfbPhEKKTKc',
      'liquidtestnet',
      'elementsregtest',
    ],
  ] as const)('another Liquid network: %s on %s', (address, profile, actual) => {
    expect(reason(address, profile)).toBe(
      `it is ${actual === 'elementsregtest' ? 'an' : 'a'} ${actual} address, but the profile's network is ${profile}; use ${profile === 'elementsregtest' ? 'an' : 'a'} ${profile} address or \`lbrl config set network ${actual}\``,
    );
  });

  it.each([
    ['0x52908400098527886E0F7030069857D2E4169EE7', 'an Ethereum (or EVM) address'],
    ['0xde709f2102306220921060314715629080e2fb77', 'an Ethereum (or EVM) address'],
    [
      'lnbc2500u1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5xysxxatsyp3k7enxv4js',
      'a Lightning invoice',
    ],
    ['lntb20m1pvjluezhp58yjmdan79s6qqdhdzgynm4zwqd5d7xmw5fk98klysy043l2ahrqs', 'a Lightning invoice'],
    [
      'LNURL1DP68GURN8GHJ7UM9WFMXJCM99E3K7MF0V9CXJ0M385EKVCENXC6R2C35XVUKXEFCV5MKVV34X5EKZD3EV56NYD3HXQURZEPEXEJXXEPNXSCRVWFNV9NXZCN9XQ6XYEFHVGCXXCMYXYMNSERXFQ5FNS',
      'an LNURL',
    ],
    ['loja@example.com.br', 'an e-mail address (a PIX key?)'],
    ['+5511987654321', 'a phone number (a PIX key?)'],
    ['(11)98765-4321', 'a phone number (a PIX key?)'],
    ['123.456.789-09', 'a CPF (a PIX key?)'],
    ['12345678909', 'a CPF (a PIX key?)'],
    ['12.345.678/0001-95', 'a CNPJ (a PIX key?)'],
    ['3f2b8c1e-9a4d-4c6b-8e21-5d7f0a9b1c2d', 'a UUID (a PIX random key, or a deposit id)'],
    ['https://blockstream.info/liquid/address/x', 'a web address (URL)'],
    ['bitcoin:bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq?amount=1', 'a Bitcoin payment URI'],
    ['KwDiBf89QgGbjEhKnhXJuH7LrciVrZi3qYjgd9M7rFU73sVHnoWn', 'a private key (WIF)'],
    [
      'xpub661MyMwAqRbcFtXgS5sYJABqqG9YLmC4Q1Rdap9gSE8NqtwybGhePY2gZ29ESFjqJoCu1Rupje8YtGqsefD265TMg7usUDFdp6W1EGMcet8',
      'an extended public key (xpub)',
    ],
    ['0002012636br.gov.bcb.pix0114+55119876543215204000053039865802BR6304ABCD', 'a PIX copy-and-paste code'],
  ])('another kind of thing: %s', (address, expected) => {
    expect(reason(address)).toContain(`it is ${expected}`);
  });

  it('eleven digits: a CPF when its check digits hold, a mobile number by its 9, else either', () => {
    expect(reason('52998224725')).toBe('it is a CPF (a PIX key?), not a Liquid address');
    expect(reason('11987654321')).toBe('it is a phone number (a PIX key?), not a Liquid address');
    expect(reason('12345678900')).toBe(
      'it is eleven digits (a CPF or a phone number: a PIX key?), not a Liquid address',
    );
  });

  it('a base58 string far from both lengths: a part is missing', () => {
    expect(reason('VJLCUu2hpcjPaTGMnAQ18s2uk3tJBFrM4Gtrt27tBKhdz5aJgkgQQjEFyot72jzycwzSPckzCXX')).toBe(
      'it is 75 characters long, but a base58 Liquid address has 34 (80 when confidential): a part is missing or extra',
    );
    // near a right length, a changed character is a checksum mismatch
    expect(reason('VJLCUu2hpcjPaTGMnAQ18s2uk3tJBFrM4Gtrt27tBKhdz5aJgkgQQjEFyot72jzycwzSPckzCXXVzwG6')).toBe(
      'its base58 checksum does not match (a typo, or not an address)',
    );
    expect(reason('VJLCUu2hpcjPaTGMnAQ18s2uk3tJBFrM4Gtrt27tBKhdz5aJgkgQQ')).toBe(
      'it is 53 characters long, but a base58 Liquid address has 34 (80 when confidential): a part is missing or extra',
    );
    expect(reason('Q7qcjTLsYGoMA7TjUp97R6E6AM5VKq')).toContain('it is 30 characters long');
  });

  it('a payment URI: the address alone is offered', () => {
    expect(reason(`liquidnetwork:${LQ}?amount=0.001`)).toBe(
      `it is a payment URI, not an address: give the address alone (${LQ})`,
    );
  });

  it('only then what is wrong with a Liquid address: length, characters, checksum', () => {
    expect(reason(LQ.slice(0, -1))).toBe(
      'it is 100 characters long, but a lq1 address has 101 or 120: a character is missing or extra',
    );
    expect(reason(`${LQ}q`)).toContain('it is 102 characters long, but a lq1 address has 101 or 120');
    expect(reason('ex1qhuq5u7udzwskhaz45fy80kdaxjytqd99ju5yf')).toContain(
      'but a ex1 address has 42 or 62: a character is missing or extra',
    );
    expect(reason(`${LQ.slice(0, -1)}b`)).toBe(
      'it contains "b" after "lq1", which blech32 does not use (1, b, i and o are left out)',
    );
    expect(reason(`${LQ.slice(0, -1)}w`)).toBe(
      'its blech32 checksum does not match (a typo, or not an address)',
    );
    expect(reason('Q7qcjTLsYGoMA7TjUp97R6E6AM5VKqBik0')).toContain(
      'it contains "0", which no base58 address has',
    );
    expect(reason('Q7qcjTLsYGoMA7TjUp97R6E6AM5VKqBik7')).toBe(
      'its base58 checksum does not match (a typo, or not an address)',
    );
    expect(reason(` ${LQ}`)).toBe('it has spaces or a line break around it (copied with them?)');
    expect(reason(`${LQ}\n`)).toBe('it has spaces or a line break around it (copied with them?)');
  });

  it('still accepts what it accepted', () => {
    expect(reason(LQ)).toBe('accepted');
    expect(reason(TLQ, 'liquidtestnet')).toBe('accepted');
  });
});

function refusal(input: string): string {
  const r = parseReais(input);
  return r.ok ? `accepted ${r.value}` : r.expected;
}

describe('a refused amount says how it was written and what to write', () => {
  it.each([
    ['1.500,00', '1500,00'],
    ['2.345,67', '2345,67'],
    ['1,500.00', '1500.00'],
    ['5,999.99', '5999.99'],
    ['1 500,00', '1500,00'],
  ])('thousands separators: %s', (input, fixed) => {
    const text = refusal(input);
    expect(text).toMatch(
      /^an amount in reais without (thousands separators|spaces \(no thousands separators\)): write /,
    );
    expect(text.endsWith(`write ${fixed}`)).toBe(true);
    expect(refusal(fixed)).toMatch(/^accepted/);
  });

  const twoDecimals = 'an amount in reais with at most two decimals (a cent is the smallest unit)';
  it.each([
    // three decimals, whatever else the number might be: the decimals are said first
    ['10,123', twoDecimals],
    ['10.123', twoDecimals],
    ['15.505', twoDecimals],
    ['999,999', twoDecimals],
    ['0,123', twoDecimals],
    [
      '1.500,123',
      'an amount in reais with at most two decimals and no thousands separator, e.g. 1500 or 15,50',
    ],
    ['15.000', `${twoDecimals}; for R$ 15,00 write 15.00`],
    ['7.000', `${twoDecimals}; for R$ 7,00 write 7.00`],
    // one group of three that makes an amount as thousands: both readings, each checked
    ['1.500', `${twoDecimals} and no thousands separator: for 1500 reais write 1500; for R$ 1,50 write 1.50`],
    ['3,250', `${twoDecimals} and no thousands separator: for 3250 reais write 3250; for R$ 3,25 write 3,25`],
    ['1,505', `${twoDecimals} and no thousands separator: for 1505 reais write 1505`],
  ])('three decimals: %s', (input, expected) => {
    expect(refusal(input)).toBe(expected);
    for (const written of expected.matchAll(/write (\S+?)(?:;|$)/g))
      expect(refusal(written[1]!)).toMatch(/^accepted/);
  });

  it.each([
    [
      '1.500.000,00',
      'an amount in reais without thousands separators, at most 6000,00 (1500000,00 would be above it)',
    ],
    [
      '15.000.000',
      'an amount in reais without thousands separators, at most 6000,00 (15000000 would be above it)',
    ],
  ])('thousands separators above the limit: %s', (input, expected) => {
    expect(refusal(input)).toBe(expected);
  });

  it.each([
    ['R$ 15,00', '15,00'],
    ['R$15', '15'],
    ['r$ 1.500,00', '1500,00'],
    ['15 reais', '15'],
    ['BRL 20.00', '20.00'],
    ['20,00 BRL', '20,00'],
  ])('a currency: %s', (input, fixed) => {
    expect(refusal(input)).toBe(`an amount in reais without the currency: write ${fixed}`);
  });

  it.each([
    ['1e3', '1000'],
    ['1E3', '1000'],
    ['1.5e2', '150'],
    ['2,5E1', '25'],
  ])('an exponent: %s', (input, fixed) => {
    expect(refusal(input)).toBe(`an amount in reais without scientific notation: write ${fixed}`);
  });
  it('an exponent that lands above the limit says so', () => {
    expect(refusal('1e9')).toBe(
      'an amount in reais without scientific notation, at most 6000,00 (1000000000 would be above it)',
    );
  });

  it.each(['-5', '−5', '-0,50', '- 15'])('negative: %s', (input) => {
    expect(refusal(input)).toBe(
      'an amount from 0.01 to 6000.00 reais (1 to 600000 cents); a negative amount is never accepted',
    );
  });

  it.each(['6000.01', '6000,01', '600001', '99999999999999999999', '10000'])('too big: %s', (input) => {
    expect(refusal(input)).toBe(
      'an amount from 0.01 to 6000.00 reais (1 to 600000 cents); it is above the limit of 6000,00 reais',
    );
  });

  it.each([
    [' 5', 'an amount in reais without spaces: write 5'],
    ['15,50\t', 'an amount in reais without spaces: write 15,50'],
    ['+5', 'an amount in reais without a sign: write 5'],
    ['.5', 'an amount in reais with a digit before the separator: write 0.5'],
    [',99', 'an amount in reais with a digit before the separator: write 0,99'],
    ['5.', 'an amount in reais with digits after the separator, or none: write 5'],
    ['0.001', 'an amount in reais with at most two decimals (a cent is the smallest unit)'],
    ['15,5050', 'an amount in reais with at most two decimals (a cent is the smallest unit)'],
    ['１２', 'an amount in reais written with the digits 0-9, e.g. 1500 or 15,50'],
    ['١٢', 'an amount in reais written with the digits 0-9, e.g. 1500 or 15,50'],
    ['1_000', 'an amount in reais with at most two decimals and no thousands separator, e.g. 1500 or 15,50'],
  ])('other writings: %j', (input, expected) => {
    expect(refusal(input)).toBe(expected);
  });

  it('cents: decimals, a minus, the limit', () => {
    const cents = (s: string) => {
      const r = readCents(s);
      return r.ok ? r.value : r.expected;
    };
    expect(cents('1.5')).toContain('cents have no decimals (for reais, use --amount)');
    expect(cents('-1')).toContain('a negative amount is never accepted');
    expect(cents('600001')).toContain('it is above the limit of 600000 cents');
    expect(cents('600000')).toBe(600000);
  });
});
