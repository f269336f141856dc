// Words for the random keywords IFEval draws when a row omits one (Python draws from its own list).
export const RANDOM_WORDS: readonly string[] = (
  'answer area art bank bed bird book box car cat city class cloud coffee color day desk dog door dream ' +
  'earth energy face family farm field fire fish floor flower food forest friend game garden glass gold ' +
  'grass hand heart hill home horse house island key king lake letter light line map market moon mountain ' +
  'music name night ocean office paper park party path piano picture plant poem queen rain river road rock ' +
  'room school sea ship shop sky snow song star stone story street sun table team tree valley village ' +
  'voice water window winter wood world year'
).split(' ');
