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

  it.each(['pedido 1', 'a=b', 'x-1', "'quoted", '', 'mesa 7'])('%j stays as it is', (value) => {
    expect(textField(value)).toBe(value);
  });

  it('a defused cell is quoted in the record, in either dialect', () => {
    expect(csvRecord([textField('=1+1'), '15,50'], CSV_BR)).toBe(`"'=1+1";15,50\r\n`);
    expect(csvRecord([textField('-2'), '15.50'], CSV_RFC)).toBe(`"'-2",15.50\r\n`);
  });
});
