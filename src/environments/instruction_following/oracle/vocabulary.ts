// Words and sentences the oracle writes answers from: plain English filler, palindromes, and one
// short sentence per language IFEval can ask for.
import type { Rng } from '../../../util/rng';

export const FILLER = (
  'answer brings clear detail every fine good helpful idea just kind light many notes often plain quick ' +
  'real simple thought useful very warm young zone bright calm deep even fresh gentle honest inner ' +
  'major neat open proper quiet rich solid true upper vivid wide yellow basic civil daily early fair ' +
  'grand human local modest natural oral prime rapid smooth total usual valid whole'
).split(' ');

export const PALINDROMES = ['level', 'noon', 'radar', 'civic', 'refer', 'wow', 'a'];

/** "Short answers help people." and the like, in each language response_language can ask for. */
export const LANGUAGE_SENTENCES: Readonly<Record<string, string>> = {
  es: 'La respuesta corta ayuda a las personas a entender el problema.',
  pt: 'A resposta curta ajuda as pessoas a entender o problema.',
  ar: 'الإجابة القصيرة تساعد الناس على فهم المشكلة.',
  hi: 'छोटा उत्तर लोगों को समस्या समझने में मदद करता है।',
  fr: 'La réponse courte aide les gens à comprendre le problème.',
  ru: 'Короткий ответ помогает людям понять проблему.',
  de: 'Die kurze Antwort hilft den Menschen, das Problem zu verstehen.',
  ja: '短い答えは人々が問題を理解するのに役立ちます。',
  it: 'La risposta breve aiuta le persone a capire il problema.',
  bn: 'ছোট উত্তর মানুষকে সমস্যাটি বুঝতে সাহায্য করে।',
  uk: 'Коротка відповідь допомагає людям зрозуміти проблему.',
  th: 'คำตอบสั้นๆ ช่วยให้ผู้คนเข้าใจปัญหา',
  ur: 'مختصر جواب لوگوں کو مسئلہ سمجھنے میں مدد دیتا ہے۔',
  ta: 'சிறிய பதில் மக்களுக்கு பிரச்சினையை புரிந்துகொள்ள உதவுகிறது.',
  te: 'చిన్న సమాధానం ప్రజలకు సమస్యను అర్థం చేసుకోవడానికి సహాయపడుతుంది.',
  bg: 'Краткият отговор помага на хората да разберат проблема.',
  ko: '짧은 대답은 사람들이 문제를 이해하는 데 도움이 됩니다.',
  pl: 'Krótka odpowiedź pomaga ludziom zrozumieć problem.',
  he: 'תשובה קצרה עוזרת לאנשים להבין את הבעיה.',
  fa: 'پاسخ کوتاه به مردم کمک می‌کند مشکل را بفهمند.',
  vi: 'Câu trả lời ngắn giúp mọi người hiểu vấn đề.',
  ne: 'छोटो उत्तरले मानिसहरूलाई समस्या बुझ्न मद्दत गर्छ।',
  sw: 'Jibu fupi linawasaidia watu kuelewa tatizo hili vizuri.',
  kn: 'ಚಿಕ್ಕ ಉತ್ತರವು ಜನರಿಗೆ ಸಮಸ್ಯೆಯನ್ನು ಅರ್ಥಮಾಡಿಕೊಳ್ಳಲು ಸಹಾಯ ಮಾಡುತ್ತದೆ.',
  mr: 'लहान उत्तर लोकांना समस्या समजून घेण्यास मदत करते.',
  gu: 'ટૂંકો જવાબ લોકોને સમસ્યા સમજવામાં મદદ કરે છે.',
  pa: 'ਛੋਟਾ ਜਵਾਬ ਲੋਕਾਂ ਨੂੰ ਸਮੱਸਿਆ ਸਮਝਣ ਵਿੱਚ ਮਦਦ ਕਰਦਾ ਹੈ।',
  ml: 'ചെറിയ ഉത്തരം ആളുകളെ പ്രശ്നം മനസ്സിലാക്കാൻ സഹായിക്കുന്നു.',
  fi: 'Lyhyt vastaus auttaa ihmisiä ymmärtämään ongelman.',
};

/** Filler words that avoid the given words (as substrings, ignoring case) and letters. */
export function fillerWords(avoid: Iterable<string>, avoidLetters: Iterable<string>, rng: Rng): string[] {
  const banned = [...avoid].map((w) => w.toLowerCase()).filter((w) => w !== '');
  const letters = [...avoidLetters];
  const words = FILLER.filter((w) => !banned.some((b) => w.includes(b) || b.includes(w)) && !letters.some((l) => w.includes(l)));
  const pool = words.length >= 8 ? words : FILLER.filter((w) => !banned.some((b) => w.includes(b)));
  return shuffle(pool.length > 0 ? pool : ['x'], rng);
}

function shuffle<T>(items: T[], rng: Rng): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
