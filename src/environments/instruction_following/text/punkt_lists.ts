// Stand-ins for the tables NLTK's English Punkt model learned from newswire: period-final words that
// do not end a sentence, and capitalised words that usually start one. Hand-made, so short.

/** Lower-cased, without the final period; internal periods kept ("e.g", "u.s"). */
export const ABBREVIATIONS: ReadonlySet<string> = new Set(
  (
    'mr mrs ms messrs dr prof sr jr st mt ft vs etc approx dept est fig figs no nos vol vols pp ed eds rev ' +
    'inc ltd co corp bros assn univ gov gen col lt sgt capt cmdr adm maj rep sen pres supt ave blvd rd ' +
    'jan feb mar apr jun jul aug sep sept oct nov dec mon tue tues wed thu thur thurs fri sat sun ' +
    'e.g i.e a.m p.m u.s u.k u.n u.s.a d.c n.y l.a a.d b.c ph.d m.d b.a m.a cf al ca ibid'
  ).split(' '),
);

/** Lower-cased words that, capitalised after an abbreviation or ellipsis, start a new sentence. */
export const SENTENCE_STARTERS: ReadonlySet<string> = new Set(
  (
    'the a an and but or so yet however moreover meanwhile then this that these those there here it its ' +
    'he she they we i you his her their our my your in on at for if when while after before although ' +
    'because since as what which who why how no not one some many most all each every both'
  ).split(' '),
);
