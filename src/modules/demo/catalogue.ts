/**
 * A realistic Argentine shop catalogue for the demo: each line is a kind of product with its
 * brands, presentations and a reference price in ARS (late 2026) for the first presentation.
 * Weighed goods (`perKg`) are sold by the kilo, with a 5-digit PLU and no barcode: their labels are
 * printed by the scale.
 */
import type { IvaRate } from '../../db/schema/index.ts';

export interface CatalogueLine {
  name: string;
  brands: string[];
  sizes: string[];
  /** Price of the first size; later sizes scale by `sizeFactor`. */
  price: number;
  sizeFactor?: number[];
  perKg?: boolean;
  /** The IVA rate when it is not the category's (10,5 %: unpackaged bread and flour, art. 28 of the IVA law). */
  iva?: IvaRate;
  description?: string;
}

export interface CatalogueCategory {
  id: number;
  name: string;
  prefix: string;
  /** The IVA rate of its lines (21 % when not given; 10,5 % for fresh fruit and vegetables). */
  iva?: IvaRate;
  lines: CatalogueLine[];
}

export const DEMO_CATEGORIES: CatalogueCategory[] = [
  {
    id: 1,
    name: 'Almacén',
    prefix: 'ALM',
    lines: [
      {
        name: 'Yerba mate con palo',
        brands: ['Taragüí', 'Playadito', 'Rosamonte', 'La Merced', 'Cruz de Malta'],
        sizes: ['500 g', '1 kg'],
        price: 2650,
        sizeFactor: [1, 1.85],
      },
      {
        name: 'Yerba mate suave',
        brands: ['Playadito', 'Unión'],
        sizes: ['500 g', '1 kg'],
        price: 2790,
        sizeFactor: [1, 1.85],
      },
      { name: 'Azúcar común tipo A', brands: ['Ledesma', 'Chango'], sizes: ['1 kg'], price: 1290 },
      {
        name: 'Arroz largo fino',
        brands: ['Gallo', 'Molinos Ala', 'Dos Hermanos'],
        sizes: ['500 g', '1 kg'],
        price: 980,
        sizeFactor: [1, 1.8],
      },
      { name: 'Fideos spaghetti', brands: ['Lucchetti', 'Matarazzo', 'Don Vicente', 'Marolio'], sizes: ['500 g'], price: 1150 },
      { name: 'Fideos tirabuzón', brands: ['Lucchetti', 'Matarazzo', 'Marolio'], sizes: ['500 g'], price: 1150 },
      { name: 'Harina de trigo 0000', brands: ['Blancaflor', 'Pureza', 'Favorita'], sizes: ['1 kg'], price: 890, iva: '10.5' },
      {
        name: 'Aceite de girasol',
        brands: ['Natura', 'Cocinero', 'Cañuelas'],
        sizes: ['900 ml', '1,5 l'],
        price: 2390,
        sizeFactor: [1, 1.6],
      },
      { name: 'Puré de tomate', brands: ['Arcor', 'La Campagnola', 'Marolio'], sizes: ['520 g'], price: 890 },
      {
        name: 'Mayonesa',
        brands: ["Hellmann's", 'Natura', 'Fanacoa'],
        sizes: ['237 g', '475 g'],
        price: 1590,
        sizeFactor: [1, 1.75],
      },
      { name: 'Galletitas de agua', brands: ['Criollitas', 'Traviata', 'Express'], sizes: ['3 x 100 g'], price: 1450 },
      { name: 'Galletitas dulces surtidas', brands: ['Bagley', 'Terrabusi', 'Arcor'], sizes: ['400 g'], price: 2190 },
      {
        name: 'Café molido torrado',
        brands: ['La Virginia', 'Cabrales', 'Bonafide'],
        sizes: ['250 g', '500 g'],
        price: 4390,
        sizeFactor: [1, 1.9],
      },
      {
        name: 'Té en saquitos',
        brands: ['Taragüí', 'La Virginia', 'Green Hills'],
        sizes: ['x 25', 'x 50'],
        price: 990,
        sizeFactor: [1, 1.8],
      },
      {
        name: 'Mate cocido en saquitos',
        brands: ['Taragüí', 'Rosamonte'],
        sizes: ['x 25', 'x 50'],
        price: 1090,
        sizeFactor: [1, 1.8],
      },
      { name: 'Lentejas secas', brands: ['Inca', 'Egran'], sizes: ['400 g'], price: 1690 },
      { name: 'Atún al natural', brands: ['La Campagnola', 'Gomes da Costa'], sizes: ['170 g'], price: 2890 },
      { name: 'Sal fina', brands: ['Celusal', 'Dos Anclas'], sizes: ['500 g'], price: 790 },
      { name: 'Polenta instantánea', brands: ['Presto Pronta', 'Morixe'], sizes: ['500 g'], price: 1190 },
      { name: 'Fideos mostachol', brands: ['Lucchetti', 'Matarazzo', 'Marolio'], sizes: ['500 g'], price: 1150 },
      {
        name: 'Mermelada de durazno',
        brands: ['Arcor', 'BC', 'La Campagnola'],
        sizes: ['390 g', '1 kg'],
        price: 1990,
        sizeFactor: [1, 2.2],
      },
      { name: 'Tapas para empanadas criollas', brands: ['La Salteña', 'Mendia'], sizes: ['x 12'], price: 1890 },
      { name: 'Caldo de verdura', brands: ['Knorr', 'Maggi'], sizes: ['x 6', 'x 12'], price: 990, sizeFactor: [1, 1.8] },
      { name: 'Arvejas secas remojadas', brands: ['Inca', 'Noel'], sizes: ['350 g'], price: 890 },
      { name: 'Choclo amarillo cremoso', brands: ['Noel', 'Arcor'], sizes: ['300 g'], price: 1190 },
    ],
  },
  {
    id: 2,
    name: 'Bebidas',
    prefix: 'BEB',
    lines: [
      {
        name: 'Gaseosa cola',
        brands: ['Coca-Cola', 'Pepsi'],
        sizes: ['500 ml', '1,5 l', '2,25 l'],
        price: 1500,
        sizeFactor: [1, 2.1, 2.7],
      },
      { name: 'Gaseosa lima limón', brands: ['Sprite', '7Up'], sizes: ['1,5 l', '2,25 l'], price: 3100, sizeFactor: [1, 1.3] },
      {
        name: 'Agua mineral sin gas',
        brands: ['Villavicencio', 'Villa del Sur', 'Glaciar'],
        sizes: ['500 ml', '2 l'],
        price: 890,
        sizeFactor: [1, 1.9],
      },
      { name: 'Agua saborizada pomelo', brands: ['Levité', 'Aquarius'], sizes: ['1,5 l'], price: 1990 },
      {
        name: 'Cerveza rubia',
        brands: ['Quilmes', 'Brahma', 'Andes', 'Patagonia'],
        sizes: ['lata 473 ml', 'botella 1 l'],
        price: 1590,
        sizeFactor: [1, 2.3],
      },
      { name: 'Vino tinto Malbec', brands: ['Trapiche', 'Norton', 'Santa Julia', 'Alamos'], sizes: ['750 ml'], price: 5890 },
      { name: 'Vino blanco Torrontés', brands: ['Santa Julia', 'Colomé', 'Cafayate'], sizes: ['750 ml'], price: 5490 },
      { name: 'Fernet', brands: ['Branca', '1882'], sizes: ['750 ml', '1 l'], price: 11990, sizeFactor: [1, 1.3] },
      { name: 'Jugo en polvo naranja', brands: ['Tang', 'Clight', 'Arcor'], sizes: ['sobre 15 g'], price: 390 },
      { name: 'Jugo en polvo durazno', brands: ['Tang', 'Clight'], sizes: ['sobre 15 g'], price: 390 },
      { name: 'Soda en sifón', brands: ['Ivess', 'Soda Jet'], sizes: ['2 l'], price: 1290 },
      {
        name: 'Bebida energizante',
        brands: ['Speed', 'Red Bull'],
        sizes: ['250 ml', '473 ml'],
        price: 1890,
        sizeFactor: [1, 1.6],
      },
      {
        name: 'Gaseosa naranja',
        brands: ['Fanta', 'Crush', 'Paso de los Toros'],
        sizes: ['1,5 l', '2,25 l'],
        price: 2990,
        sizeFactor: [1, 1.3],
      },
      { name: 'Sidra', brands: ['Real', '1888'], sizes: ['720 ml'], price: 3490 },
    ],
  },
  {
    id: 3,
    name: 'Lácteos',
    prefix: 'LAC',
    lines: [
      { name: 'Leche entera sachet', brands: ['La Serenísima', 'SanCor', 'Tregar'], sizes: ['1 l'], price: 1390 },
      { name: 'Leche descremada larga vida', brands: ['La Serenísima', 'SanCor'], sizes: ['1 l'], price: 1690 },
      { name: 'Yogur bebible frutilla', brands: ['La Serenísima', 'SanCor', 'Yogurísimo'], sizes: ['900 g'], price: 2490 },
      { name: 'Manteca', brands: ['La Serenísima', 'SanCor', 'Tonadita'], sizes: ['200 g'], price: 2390 },
      {
        name: 'Dulce de leche clásico',
        brands: ['La Serenísima', 'SanCor', 'Havanna', 'Milkaut'],
        sizes: ['400 g', '1 kg'],
        price: 2190,
        sizeFactor: [1, 2.2],
      },
      { name: 'Crema de leche', brands: ['La Serenísima', 'Milkaut'], sizes: ['200 ml'], price: 1890 },
      { name: 'Queso untable', brands: ['Casancrem', 'Finlandia'], sizes: ['290 g'], price: 3190 },
      { name: 'Queso rallado', brands: ['La Paulina', 'La Serenísima'], sizes: ['150 g'], price: 2990 },
    ],
  },
  {
    id: 4,
    name: 'Limpieza',
    prefix: 'LIM',
    lines: [
      { name: 'Lavandina', brands: ['Ayudín', 'Querubín'], sizes: ['1 l', '2 l'], price: 990, sizeFactor: [1, 1.8] },
      {
        name: 'Detergente limón',
        brands: ['Magistral', 'Cif', 'Ala'],
        sizes: ['500 ml', '750 ml'],
        price: 1890,
        sizeFactor: [1, 1.4],
      },
      { name: 'Jabón en polvo', brands: ['Ala', 'Skip', 'Ariel'], sizes: ['800 g', '3 kg'], price: 3490, sizeFactor: [1, 3.4] },
      { name: 'Jabón líquido para ropa', brands: ['Skip', 'Ala', 'Ariel'], sizes: ['3 l'], price: 9890 },
      { name: 'Suavizante', brands: ['Vivere', 'Comfort'], sizes: ['900 ml', '3 l'], price: 2190, sizeFactor: [1, 2.9] },
      { name: 'Limpiador de pisos lavanda', brands: ['Poett', 'Procenex'], sizes: ['900 ml'], price: 1590 },
      { name: 'Esponja multiuso', brands: ['Mortimer', 'Virulana'], sizes: ['x 3'], price: 1290 },
      { name: 'Bolsas de residuo 50 x 70', brands: ['Ecobolsa', 'Plastiflex'], sizes: ['x 30'], price: 1490 },
    ],
  },
  {
    id: 5,
    name: 'Perfumería',
    prefix: 'PER',
    lines: [
      {
        name: 'Shampoo',
        brands: ['Sedal', 'Pantene', 'Plusbelle', 'Elvive'],
        sizes: ['340 ml', '750 ml'],
        price: 3290,
        sizeFactor: [1, 1.9],
      },
      { name: 'Acondicionador', brands: ['Sedal', 'Pantene', 'Elvive'], sizes: ['340 ml'], price: 3290 },
      {
        name: 'Jabón de tocador',
        brands: ['Dove', 'Rexona', 'Lux', 'Plusbelle'],
        sizes: ['90 g', '3 x 90 g'],
        price: 990,
        sizeFactor: [1, 2.7],
      },
      { name: 'Desodorante en aerosol', brands: ['Rexona', 'Axe', 'Dove', 'Nivea'], sizes: ['150 ml'], price: 3590 },
      { name: 'Pasta dental', brands: ['Colgate', 'Odol', 'Sensodyne'], sizes: ['90 g'], price: 2290 },
      {
        name: 'Papel higiénico hoja simple',
        brands: ['Higienol', 'Elite', 'Campanita'],
        sizes: ['4 x 30 m', '12 x 30 m'],
        price: 2390,
        sizeFactor: [1, 2.8],
      },
      { name: 'Rollo de cocina', brands: ['Sussex', 'Elite'], sizes: ['x 3'], price: 2690 },
      { name: 'Pañales talle G', brands: ['Pampers', 'Huggies', 'Babysec'], sizes: ['x 30'], price: 18990 },
    ],
  },
  {
    id: 6,
    name: 'Golosinas',
    prefix: 'GOL',
    lines: [
      {
        name: 'Alfajor triple de chocolate',
        brands: ['Havanna', 'Jorgito', 'Guaymallén', 'Capitán del Espacio', 'Terrabusi'],
        sizes: ['unidad'],
        price: 890,
      },
      { name: 'Alfajor de maicena', brands: ['Havanna', 'Fantoche'], sizes: ['unidad'], price: 790 },
      { name: 'Chocolate con leche', brands: ['Milka', 'Águila', 'Cofler', 'Felfort'], sizes: ['100 g'], price: 2490 },
      { name: 'Caramelos masticables', brands: ['Sugus', 'Arcor'], sizes: ['bolsa 150 g'], price: 1290 },
      { name: 'Turrón de maní', brands: ['Arcor', 'Misky'], sizes: ['unidad'], price: 390 },
      { name: 'Chicles de menta', brands: ['Beldent', 'Topline'], sizes: ['x 8'], price: 790 },
      { name: 'Bombón helado', brands: ['Frigor', 'Arcor'], sizes: ['unidad'], price: 1190 },
      { name: 'Maní salado', brands: ['Pehuamar', 'Krachitos'], sizes: ['120 g'], price: 1290 },
      {
        name: 'Papas fritas clásicas',
        brands: ["Lay's", 'Pehuamar'],
        sizes: ['150 g', '300 g'],
        price: 2490,
        sizeFactor: [1, 1.8],
      },
      { name: 'Obleas rellenas', brands: ['Bon o Bon', 'Tatín'], sizes: ['unidad'], price: 590 },
      { name: 'Pastillas de menta', brands: ['Halls', 'Mentitas'], sizes: ['unidad'], price: 690 },
    ],
  },
  {
    id: 7,
    name: 'Congelados',
    prefix: 'CON',
    lines: [
      {
        name: 'Hamburguesas de carne',
        brands: ['Paty', 'Swift', 'Granja del Sol'],
        sizes: ['x 4', 'x 12'],
        price: 3990,
        sizeFactor: [1, 2.7],
      },
      { name: 'Papas prefritas', brands: ['McCain', 'Granja del Sol'], sizes: ['720 g'], price: 3690 },
      { name: 'Medallones de pollo', brands: ['Granja del Sol', 'Sadia'], sizes: ['x 4'], price: 3290 },
      { name: 'Helado crema americana', brands: ['Frigor', 'Grido'], sizes: ['1 kg'], price: 6490 },
      { name: 'Empanadas de carne', brands: ['La Salteña', 'Granja del Sol'], sizes: ['x 12'], price: 7990 },
    ],
  },
  {
    id: 8,
    name: 'Fiambrería',
    prefix: 'FIA',
    lines: [
      {
        name: 'Jamón cocido natural',
        brands: ['Paladini', 'Cagnoli', 'Calchaquí'],
        sizes: ['por kg'],
        price: 15990,
        perKg: true,
      },
      { name: 'Salame tipo Milán', brands: ['Cagnoli', 'Paladini'], sizes: ['por kg'], price: 19990, perKg: true },
      { name: 'Queso de máquina', brands: ['La Paulina', 'SanCor'], sizes: ['por kg'], price: 13490, perKg: true },
      { name: 'Queso cremoso', brands: ['La Paulina', 'Punta del Agua'], sizes: ['por kg'], price: 10990, perKg: true },
      { name: 'Mortadela', brands: ['Paladini'], sizes: ['por kg'], price: 8990, perKg: true },
    ],
  },
  {
    id: 9,
    name: 'Verdulería',
    prefix: 'VER',
    iva: '10.5',
    lines: [
      { name: 'Papa negra', brands: [''], sizes: ['por kg'], price: 990, perKg: true },
      { name: 'Cebolla', brands: [''], sizes: ['por kg'], price: 1190, perKg: true },
      { name: 'Tomate perita', brands: [''], sizes: ['por kg'], price: 2490, perKg: true },
      { name: 'Banana Ecuador', brands: [''], sizes: ['por kg'], price: 2290, perKg: true },
      { name: 'Manzana roja', brands: [''], sizes: ['por kg'], price: 2690, perKg: true },
      { name: 'Naranja de jugo', brands: [''], sizes: ['por kg'], price: 1490, perKg: true },
      { name: 'Zanahoria', brands: [''], sizes: ['por kg'], price: 1290, perKg: true },
      { name: 'Zapallo anco', brands: [''], sizes: ['por kg'], price: 1390, perKg: true },
      { name: 'Limón', brands: [''], sizes: ['por kg'], price: 1990, perKg: true },
    ],
  },
  {
    id: 10,
    name: 'Panadería',
    prefix: 'PAN',
    lines: [
      { name: 'Pan francés', brands: [''], sizes: ['por kg'], price: 3290, perKg: true, iva: '10.5' },
      { name: 'Medialunas de manteca', brands: ['Panadería propia'], sizes: ['docena'], price: 7990, iva: '10.5' },
      { name: 'Facturas surtidas', brands: ['Panadería propia'], sizes: ['docena'], price: 8990, iva: '10.5' },
      { name: 'Pan lactal blanco', brands: ['Fargo', 'Bimbo'], sizes: ['550 g'], price: 3290 },
      { name: 'Grisines', brands: ['Granix', 'Tostadas Riera'], sizes: ['200 g'], price: 1690 },
      { name: 'Bizcochitos de grasa', brands: ['Don Satur'], sizes: ['200 g'], price: 1190 },
    ],
  },
];
