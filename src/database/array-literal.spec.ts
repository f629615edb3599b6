import { arrayLiteral } from './array-literal';

describe('arrayLiteral', () => {
  it('writes elements that need no quotes as they are, in one text', () => {
    expect(arrayLiteral(['0xabc', 'bitcoincash:qq9', '0:ab', '12.5', 7, 2n ** 70n, '-3'])).toBe(
      `{0xabc,bitcoincash:qq9,0:ab,12.5,7,${(2n ** 70n).toString()},-3}`,
    );
    expect(arrayLiteral([])).toBe('{}');
  });

  it('quotes and escapes the others, and writes null as NULL', () => {
    expect(arrayLiteral(['a b', '', 'NULL', 'x"y', 'x\\y', 'a,b', null, undefined, 'ok'])).toBe(
      '{"a b","","NULL","x\\"y","x\\\\y","a,b",NULL,NULL,ok}',
    );
  });

  it('leaves an array holding anything else to the driver', () => {
    expect(arrayLiteral(['a', new Date(0)])).toBeUndefined();
    expect(arrayLiteral([['nested']])).toBeUndefined();
    expect(arrayLiteral([true])).toBeUndefined();
  });
});
