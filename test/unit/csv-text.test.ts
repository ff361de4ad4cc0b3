/** A text cell of lbrl's CSV is never a formula in a spreadsheet (OWASP's CSV injection rule). */
import { describe, expect, it } from 'vitest';
import { CSV_BR, CSV_RFC, csvRecord, textField } from '../../src/domain/text/csv-write.js';

describe('textField', () => {
  it.each([
    ['=1+1', "'=1+1"],
    ['+1', "'+1"],
    ['-1', "'-1"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\t=1', "'\t=1"],
    ['\r=1', "'\r=1"],
    ['  =1', "'  =1"],
    ['\uff1d1+1', "'\uff1d1+1"],
    ['\uff20x', "'\uff20x"],
  ])('%j leads with a quote', (value, shown) => {
    expect(textField(value)).toBe(shown);
  });

  // each opened as a number, a date, a time, a percentage, a currency or a truth value by
  // LibreOffice Calc (pt-BR `;` or en-US `,`), so its text was lost
  it.each([
    '00123',
    '1/2',
    '15,50',
    '1.234',
    '.5',
    '(10)',
    '5-',
    '2026-11-28',
    '1e5',
    '12 1/2',
    '10 %',
    'R$ 10,00',
    '$5',
    '12:30',
    '11:00 PM',
    'Jan 5',
    '5 Jan',
    'nov/26',
    '5 de dezembro',
    'VERDADEIRO',
    'falso',
    'TRUE',
    '\uff11\uff12\uff13',
    '1.0e+3',
    'mar 5',
    '1 dez.',
    '0,5 %',
  ])('%j, which a spreadsheet reads as a value, leads with a quote', (value) => {
    expect(textField(value)).toBe(`'${value}`);
  });

  it.each([
    'pedido 1',
    'a=b',
    'x-1',
    "'quoted",
    '',
    'mesa 7',
    '23:59 do dia 30',
    'pão de queijo',
    'Mon',
    '12:30 a',
    '00000000-0000-4000-8000-000000000012',
  ])('%j stays as it is', (value) => {
    expect(textField(value)).toBe(value);
  });

  it('a defused cell is quoted in the record, in either dialect', () => {
    expect(csvRecord([textField('=1+1'), '15,50'], CSV_BR)).toBe(`"'=1+1";15,50\r\n`);
    expect(csvRecord([textField('-2'), '15.50'], CSV_RFC)).toBe(`"'-2",15.50\r\n`);
  });
});
