import { describe, expect, it } from 'vitest';
import { NameIndex } from './name-index.ts';
import { boundedDistance, fold, readText } from './search-text.ts';

const words = (text: string) => readText(text).tokens.map((t) => (t.kind === 'word' ? t.text : `${t.kind}:${t.text}`));

describe('readText', () => {
  it('folds words to how they sound: v/b, s/z/c, ll/y, silent h, doubled letters, qu, sh, leading es', () => {
    expect(fold('yerva')).toBe(fold('yerba'));
    expect(fold('suabe')).toBe(fold('suave'));
    expect(fold('asucar')).toBe(fold('azucar'));
    expect(fold('sebolla')).toBe(fold('cebolla'));
    expect(fold('frutiya')).toBe(fold('frutilla'));
    expect(fold('zanaoria')).toBe(fold('zanahoria'));
    expect(fold('matarazo')).toBe(fold('matarazzo'));
    expect(fold('champu')).not.toBe(fold('shampoo')); // one slip apart, matched by the edit distance
    expect(boundedDistance(fold('champu'), fold('shampoo'), 1)).toBe(1);
    expect(fold('esprite')).toBe(fold('sprite'));
  });

  it('reads plurals as singulars and drops accents and case', () => {
    expect(words('PAÑALES Limones fideos')).toEqual(words('pañal limón fideo'));
  });

  it('reads sizes the way people say them', () => {
    expect(words('2 litros')).toEqual(['size:2000ml']);
    expect(words('2 l')).toEqual(['size:2000ml']);
    expect(words('litro')).toEqual(['size:1000ml']);
    expect(words('medio kilo')).toEqual(['size:500g']);
    expect(words('1 litro y medio')).toEqual(words('1,5 l'));
    expect(words('1.5 L')).toEqual(words('1,5 l'));
    expect(words('500 gramos')).toEqual(['size:500g']);
    expect(words('x 50')).toEqual(['size:x50']);
    expect(words('50 saquitos')).toEqual(['size:x50']);
    expect(words('12 x 30 m')).toEqual(['size:x12', 'size:30m']);
    expect(words('dos litros')).toEqual(['size:2000ml']);
    expect(words('seven up')).toEqual(['number:7', 'up']);
    expect(words('(por kg)')).toEqual(['stop:por']);
  });
});

describe('NameIndex', () => {
  const index = new NameIndex([
    { id: 1, name: 'Sal fina Celusal 500 g', mark: 'Celusal' },
    { id: 2, name: 'Salame tipo Milán Cagnoli (por kg)', mark: 'Cagnoli' },
    { id: 3, name: 'Queso cremoso La Paulina (por kg)', mark: 'La Paulina' },
    { id: 4, name: 'Choclo amarillo cremoso Noel 300 g', mark: 'Noel' },
    { id: 5, name: 'Queso de máquina SanCor (por kg)', mark: 'SanCor' },
    { id: 6, name: 'Gaseosa cola Coca-Cola 1,5 l', mark: 'Coca-Cola' },
    { id: 7, name: 'Gaseosa cola Coca-Cola 2,25 l', mark: 'Coca-Cola' },
    { id: 8, name: 'Agua mineral sin gas Villavicencio 2 l', mark: 'Villavicencio' },
    { id: 9, name: 'Agua mineral sin gas Villa del Sur 2 l', mark: 'Villa del Sur' },
    { id: 10, name: 'Obleas rellenas Bon o Bon unidad', mark: 'Bon o Bon' },
    { id: 11, name: 'Limón Tucumán seleccionado grande de estación calibre 5 (por kg)', mark: null },
    { id: 14, name: 'Queso rallado La Serenísima 150 g', mark: 'La Serenísima' },
    { id: 15, name: 'Queso untable Casancrem 290 g', mark: 'Casancrem' },
    { id: 12, name: 'Detergente limón Magistral 500 ml', mark: 'Magistral' },
    { id: 13, name: 'Gaseosa lima limón 7Up 1,5 l', mark: '7Up' },
  ]);
  const ids = (query: string) => index.search(query, 6).map((r) => r.id);

  it('puts a whole word above a word that only starts the same', () => {
    expect(ids('sal')[0]).toBe(1);
    expect(ids('sal')).toContain(2);
  });

  it('puts the product type above an adjective that other names share', () => {
    const cheese = ids('queso cremoso');
    expect(cheese[0]).toBe(3);
    // Every other cheese before the creamed corn, though "cremoso" is rarer than "queso".
    expect(cheese.indexOf(4)).toBeGreaterThan(Math.max(cheese.indexOf(5), cheese.indexOf(14), cheese.indexOf(15)));
    expect(ids('limon')[0]).toBe(11);
  });

  it('reads brands joined, split or spelled out, and sizes as numbers', () => {
    expect(ids('cocacola 2,25')[0]).toBe(7);
    expect(ids('coca 1.5')[0]).toBe(6);
    expect(ids('villa vicencio')[0]).toBe(8);
    expect(ids('villa del sur')[0]).toBe(9);
    expect(ids('bonobon')[0]).toBe(10);
    expect(ids('seven up')[0]).toBe(13);
  });

  it('tolerates one slip in a word and two in a long one', () => {
    expect(ids('magistrall')[0]).toBe(12);
    expect(ids('detergnete')[0]).toBe(12);
    expect(ids('vilavisensio')[0]).toBe(8);
  });

  it('finds nothing for a word that is nowhere', () => {
    expect(ids('zzqqxx')).toEqual([]);
    // A letter held down folds to one letter: it names nothing, however long the run.
    expect(ids('ssssssss')).toEqual([]);
    expect(ids('zzzzzzzzzz')).toEqual([]);
    expect(ids('aaaaaaaa')).toEqual([]);
    expect(ids('cccc')).toEqual([]);
    expect(ids('2 litros')).toEqual([]);
    expect(new NameIndex([]).search('queso', 6)).toEqual([]);
  });
});
