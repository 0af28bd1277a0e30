// Phrase families of injection.heuristic as data: per language, the verbs, nouns and fixed phrases
// that make up each family. heuristic.ts folds every family into one compiled alternation (one for
// Latin script, one for the other scripts). Hot path: no I/O here; regexes are built once, at import.
//
// Every fragment is regex source matched against LOWER-CASED text with the `u` flag. Repetition is
// always bounded, and the only quantified group (`gap`) alternates two disjoint character classes,
// so it can split a text one way only: each family regex stays linear in the text.

/**
 * Up to about n characters inside one clause (no . ! ? ; : inside). For space-separated scripts the gap is counted in
 * whole words (a word cannot contain a separator and vice versa), so a failed attempt costs a few
 * steps per word instead of one step per character per alternative: `ignore ignore ignore ...`
 * stays linear. Unspaced scripts (CJK, Thai) use a short character gap.
 */
export const gap = (n: number): string => `(?:[\\s,'"«»“”()-]{1,3}[^\\s.!?,;:'"«»“”()-]{1,20}){0,${Math.max(1, Math.ceil(n / 7))}}?[\\s,'"«»“”()-]{1,3}`;
export const charGap = (n: number): string => `[^.!?\\n\\u3002\\uff01\\uff1f]{0,${n}}?`;
/** Optional word tail, e.g. `ignor` + STEM covers ignore / ignores / ignorez / ignoriere. */
export const STEM = '\\p{L}{0,10}';
/**
 * Left word boundary of Latin-script fragments. `\b` is ASCII-only but cheap; fragments in other
 * spaced scripts use a look-behind instead (see pairSource).
 */
export const WB = '\\b';

const alt = (parts: readonly string[]): string => `(?:${parts.join('|')})`;

/** Letters of scripts other than Latin; heuristic.ts runs such fragments only on texts that have them. */
export const NON_LATIN_SOURCE_RE =
  /[\p{Script=Greek}\p{Script=Cyrillic}\p{Script=Arabic}\p{Script=Devanagari}\p{Script=Bengali}\p{Script=Thai}\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

const SCRIPT_GROUPS: ReadonlyArray<[string, RegExp]> = [
  ['cyrillic', /\p{Script=Cyrillic}/u], ['greek', /\p{Script=Greek}/u], ['arabic', /\p{Script=Arabic}/u], ['devanagari', /\p{Script=Devanagari}/u],
  ['bengali', /\p{Script=Bengali}/u], ['thai', /\p{Script=Thai}/u], ['hangul', /\p{Script=Hangul}/u], ['cjk', /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u],
];

/**
 * A phrase list with its other-script fragments merged into one alternative per script. The
 * other-script part of a family is one flat alternation tried at every position; nested per
 * script, a Devanagari text no longer tries every Cyrillic and CJK phrase at every character.
 * Latin fragments stay as they are (heuristic.ts gives them a word boundary and groups them).
 */
export function groupByScript(fragments: readonly string[]): string[] {
  const latin: string[] = [];
  const groups = new Map<string, string[]>();
  for (const fragment of fragments) {
    if (!NON_LATIN_SOURCE_RE.test(fragment)) {
      latin.push(fragment);
      continue;
    }
    const script = SCRIPT_GROUPS.find(([, re]) => re.test(fragment))?.[0] ?? 'other';
    groups.set(script, [...(groups.get(script) ?? []), fragment]);
  }
  return [...latin, ...[...groups.values()].map((group) => (group.length === 1 ? group[0]! : `(?:${group.join('|')})`))];
}

/**
 * One fragment per script group for a word list used inside a larger pattern, so that a Latin
 * text never pays for the Cyrillic, CJK or Devanagari alternatives.
 */
export function perScript(words: readonly string[], build: (alternation: string) => string): string[] {
  const latin = words.filter((w) => !NON_LATIN_SOURCE_RE.test(w));
  const other = words.filter((w) => NON_LATIN_SOURCE_RE.test(w));
  return [latin, other].filter((group) => group.length > 0).map((group) => build(alt(group)));
}

/** Verb, then noun within a sentence — or, for noun-first languages, noun then verb. */
export interface PairTable {
  verbs: readonly string[];
  nouns: readonly string[];
  /** Languages that usually put the object first (Japanese, Korean, Hindi, Turkish, ...). */
  nounFirst?: boolean;
  /** Scripts written without spaces need a shorter gap in characters. */
  gapChars?: number;
  /** Scripts whose words are not space-delimited: no left word boundary. */
  noBoundary?: boolean;
}

/** A Latin-only pair for every text, plus the full pair (all scripts) for texts with other scripts. */
export function pairSources(table: PairTable): string[] {
  const latin = (words: readonly string[]): string[] => words.filter((w) => !NON_LATIN_SOURCE_RE.test(w));
  const verbs = latin(table.verbs);
  const nouns = latin(table.nouns);
  const full = pairSource(table);
  if (verbs.length === table.verbs.length && nouns.length === table.nouns.length) return full;
  if (verbs.length === 0 || nouns.length === 0) return full;
  // The Latin-only pair keeps a word boundary even for tables of unspaced scripts.
  return [...pairSource({ ...table, verbs, nouns, noBoundary: false, gapChars: Math.max(table.gapChars ?? 40, 7) }), ...full];
}

/** Words that `\b` cannot bound: other scripts, or Latin words starting with a non-ASCII letter. */
const needsLookBehind = (word: string): boolean => NON_LATIN_SOURCE_RE.test(word) || word.charCodeAt(0) > 0x7f;
const LOOK_BEHIND = '(?<![\\p{L}\\p{N}])';

/**
 * Regex fragments for a pair table: lead word, gap, second word, in both orders for noun-first
 * languages. Lead words `\b` can bound get their own fragment (cheap, hoisted by heuristic.ts);
 * the rest use a look-behind.
 */
export function pairSource(table: PairTable): string[] {
  const span = table.noBoundary ? charGap(table.gapChars ?? 40) : gap(table.gapChars ?? 40);
  const fragments = (lead: readonly string[], follow: readonly string[]): string[] => {
    if (table.noBoundary) return [`${alt(lead)}${span}${alt(follow)}`];
    const plain = lead.filter((w) => !needsLookBehind(w));
    const other = lead.filter(needsLookBehind);
    return [
      ...(plain.length > 0 ? [`${WB}${alt(plain)}${span}${alt(follow)}`] : []),
      ...(other.length > 0 ? [`${LOOK_BEHIND}${alt(other)}${span}${alt(follow)}`] : []),
    ];
  };
  return [...fragments(table.verbs, table.nouns), ...(table.nounFirst ? fragments(table.nouns, table.verbs) : [])];
}

// ---------------------------------------------------------------------------------------------
// Instruction override: "ignore / forget / disregard" + "previous instructions".
// ---------------------------------------------------------------------------------------------

/** English: the strong form needs a qualifier (previous, all, your, ...) between verb and noun. */
export const OVERRIDE_EN = {
  /** Verbs that drop instructions outright. */
  verbs: [
    'ignor(?:e|es|ing)', 'disregard(?:ing)?', 'forget(?:ting)?(?! to\\b)', 'overlook', 'neglect', 'discard', 'abandon', 'set aside',
    'pay no (?:attention|heed) to', 'do not (?:follow|obey)', "don'?t (?:follow|obey)", 'stop (?:following|obeying)',
    'no longer (?:follow|obey)', 'throw (?:out|away)', 'skip', 'drop', 'erase', 'delete', 'cancel', 'revoke', 'nullify',
  ],
  /** Verbs that also fit ordinary prose ("reset the rules of the game"); weaker evidence. */
  looseVerbs: ['bypass', 'override', 'clear', 'reset', 'suspend', 'deactivate', 'circumvent', 'disable'],
  qualifiers: [
    'previous', 'prior', 'above', 'earlier', 'preceding', 'foregoing', 'all', 'any', 'your', 'initial',
    'original', 'system', 'existing', 'old', 'current', 'every', 'these', 'those', 'developer',
    'pre-?programmed', 'default', 'given',
  ],
  /** Nouns that name the assistant's instructions. */
  nouns: [
    'instructions?', 'i[a-z]{0,2}nstr[a-z]{0,4}ions?', 'directions', 'directives?', 'rules', 'guidelines', 'guidance', 'prompts?',
    'commands', 'orders', 'system prompt', 'programming', 'context',
    "(?:that|what) you(?:'ve| have)? (?:been|were) (?:told|instructed|given)", 'you (?:were|have been) (?:told|instructed)',
  ],
  /** Nouns for safety limits; with an override verb this is restriction removal, not override. */
  looseNouns: ['constraints', 'restrictions', 'guardrails', 'policies', 'filters', 'safeguards', 'limitations', 'training', 'boundaries', 'ethics'],
};

/** "Ignore the above." / "ignore everything before this" — the adjective alone ends the clause. */
export const OVERRIDE_BARE_EN = [
  `${WB}(?:ignore|disregard|forget|discard) (?:about )?(?:all |absolutely )?(?:of )?(?:everything|anything|all of (?:that|this)|what (?:i|you|we) (?:said|wrote|told you|discussed))(?:,)? (?:(?:that |which )?(?:i|you|we)(?:'ve| have)? (?:said|wrote|written|told you|discussed|were told|have been told|learned) )?(?:so far|above|before|previously|until now|up to now|earlier|prior to this)\\b`,
  `${WB}(?:ignore|disregard|forget)(?: all| everything| anything)?(?: of)?(?: the| what(?:'s| is| was))? (?:above|before|previous(?:ly)?(?: said)?|prior|preceding|said before)(?=\\s*(?:[.,;:!]|and |then |$))`,
  `${WB}regardless of (?:any |all |your |the )?(?:previous|prior|earlier|above|original) (?:tasks?|instructions?|rules|prompts?|directions)`,
  `${WB}(?:ignore|disregard|forget) (?:about )?(?:all |any )?(?:of )?(?:the |your )?(?:previous|prior|preceding|earlier|above|former) (?:tasks?|assignments?|requests?|conversations?)\\b`,
  `${WB}instead of (?:following )?(?:your|the) (?:previous|original|initial|system) (?:instructions?|task|prompt)`,
  `${WB}(?:your|the) (?:previous|prior|original|initial|old) (?:instructions?|rules|guidelines|directives) (?:are|is|have been|were) (?:now )?(?:void|cancel+ed|revoked|obsolete|replaced|overridden|lifted|no longer (?:valid|apply|in effect))`,
];

/** Other languages: verb + instruction noun (these nouns are specific enough on their own). */
export const OVERRIDE_BY_LANGUAGE: Record<string, PairTable> = {
  fr: {
    verbs: ['ignor' + STEM, 'oubli' + STEM, 'ne (?:tenez|tiens) (?:pas|plus) compte', 'faites abstraction', 'fais abstraction', 'néglige' + STEM, 'écarte' + STEM, 'passe[zr]? outre', 'ne suivez plus', 'ne suis plus'],
    nouns: ['instructions?', 'tâches (?:précédentes|antérieures)', 'consignes', 'directives', 'règles', 'indications', 'ordres', 'commandes', 'ce qui précède', 'tout ce qui (?:précède|a été dit)'],
  },
  de: {
    verbs: ['ignorier' + STEM, 'vergiss', 'vergessen sie', 'vergesst', 'missachte' + STEM, 'beachte(?:n sie)? nicht', 'übergeh' + STEM, 'außer acht', 'verwirf', 'verwerfen sie', 'setze(?:n sie)? außer kraft'],
    nouns: ['anweisung' + STEM, '(?:vorherig|vorig|bisherig|obig)' + STEM + ' aufgaben', 'anordnungen', 'befehle', 'regeln', 'richtlinien', 'vorgaben', 'instruktionen', 'vorschriften', 'das obige', 'alles (?:obige|vorherige|bisherige|oben|davor|zuvor|bisher)', 'alles,? was (?:ich|du|wir) (?:vorher|zuvor|bisher|gerade)'],
    nounFirst: true,
  },
  es: {
    verbs: ['ignor' + STEM, 'olv[ií]d' + STEM, 'descart' + STEM, 'haz caso omiso', 'haga caso omiso', 'no hagas caso', 'pasa por alto', 'pase por alto', 'omit' + STEM, 'desestim' + STEM, 'deja de seguir'],
    nouns: ['instrucciones', 'tareas anteriores', 'indicaciones', 'reglas', 'directrices', 'órdenes', 'normas', 'consignas', '(?:todo )?lo anterior'],
  },
  pt: {
    verbs: ['ignor' + STEM, 'esqueç' + STEM, 'esquec' + STEM, 'desconsider' + STEM, 'descart' + STEM, 'desprez' + STEM, 'deixe de seguir', 'não siga'],
    nouns: ['instruções', 'tarefas anteriores', 'orientações', 'regras', 'diretrizes', 'ordens', 'indicações', 'comandos', '(?:tudo )?o (?:que foi dito )?(?:acima|anterior)'],
  },
  it: {
    verbs: ['ignor' + STEM, 'dimentic' + STEM, 'trascur' + STEM, 'non tener(?:e)? conto', 'non considerare', 'tralasci' + STEM, 'scarta' + STEM],
    nouns: ['istruzioni', 'compiti precedenti', 'indicazioni', 'regole', 'direttive', 'ordini', 'comandi', 'consegne', 'quanto (?:sopra|detto)', 'ciò che precede'],
  },
  nl: {
    verbs: ['negeer' + STEM, 'vergeet', 'vergeten', 'sla' + gap(20) + 'over', 'houd geen rekening', 'laat' + gap(20) + 'varen'],
    nouns: ['instructies', 'aanwijzingen', 'regels', 'opdrachten', 'richtlijnen', 'bevelen', 'het bovenstaande', 'alles hierboven'],
    nounFirst: true,
  },
  ru: {
    verbs: ['игнорир' + STEM, 'проигнориру' + STEM, 'забуд' + STEM, 'забыть', 'не обращай' + STEM, 'пренебре' + STEM, 'отбрось' + STEM, 'не учитывай' + STEM, 'отмени' + STEM, 'не следуй' + STEM],
    nouns: ['инструкци' + STEM, 'указани' + STEM, 'правил' + STEM, 'команд' + STEM, 'директив' + STEM, 'установк' + STEM, 'предыдущ' + STEM, 'вышесказанн' + STEM, 'всё выше' + STEM],
    nounFirst: true,
  },
  zh: {
    verbs: ['忽略', '无视', '無視', '忽视', '忽視', '忘记', '忘記', '忘掉', '不要理会', '不理会', '别理', '別理', '抛开', '拋開', '不要遵循', '不再遵守', '不要遵守', '放弃'],
    nouns: ['指令', '指示', '说明', '說明', '规则', '規則', '提示', '命令', '要求', '设定', '設定', '以上', '上面', '上述', '之前', '前面'],
    nounFirst: true, gapChars: 12, noBoundary: true,
  },
  ja: {
    verbs: ['無視', '忘れ', '従わない', '従うな', '無効に', '破棄', 'なかったことに'],
    nouns: ['指示', '命令', 'ルール', '指令', 'プロンプト', '制約', '設定', '規則', '上記', '以上', '上の', '前の', '上述'],
    nounFirst: true, gapChars: 12, noBoundary: true,
  },
  ko: {
    verbs: ['무시', '잊어', '잊고', '잊으', '따르지 마', '따르지 말', '무효'],
    nouns: ['지시', '지침', '명령', '규칙', '프롬프트', '설정', '안내', '위의', '위 내용', '이전'],
    nounFirst: true, gapChars: 16, noBoundary: true,
  },
  ar: {
    verbs: ['تجاهل', 'انس', 'انسى', 'لا تتبع', 'اهمل', 'أهمل', 'تجاوز', 'تغاضى', 'تغاض'],
    nouns: ['التعليمات', 'تعليمات', 'الأوامر', 'أوامر', 'القواعد', 'الإرشادات', 'التوجيهات', 'توجيهات', 'ما سبق', 'أعلاه', 'السابقة'],
    nounFirst: true, noBoundary: true,
  },
  hi: {
    verbs: ['अनदेखा', 'नज़रअंदाज़', 'नजरअंदाज', 'भूल', 'अवहेलना', 'अनदेखी', 'उपेक्षा', 'ध्यान न', 'परवाह (?:किए|किये|करते हुए) बिना'],
    nouns: ['निर्देश', 'आदेश', 'नियम', 'हिदायत', 'ऊपर', 'पिछले'],
    nounFirst: true, noBoundary: true,
  },
  bn: {
    verbs: ['উপেক্ষা', 'ভুলে', 'ভুলুন', 'অগ্রাহ্য', 'অবহেলা', 'এড়িয়ে', 'উপেক্ষ', 'নির্বিশেষে'],
    nouns: ['নির্দেশ', 'আদেশ', 'নিয়ম', 'নির্দেশনা', 'নির্দেশাবলী', 'উপরের', 'আগের', 'পূর্ববর্তী'],
    nounFirst: true, noBoundary: true,
  },
  tr: {
    // "bakılmaksızın", "bağımsız olarak": regardless of ("önceki görevlerden bağımsız olarak")
    verbs: ['görmezden gel', 'yok say', 'unut', 'dikkate alma', 'göz ardı', 'umursama', 'ihmal et', 'boşver', 'aldırma', 'bakılmaksızın', 'bağımsız olarak'],
    nouns: ['talimat' + STEM, 'komut' + STEM, 'kural' + STEM, 'yönerge' + STEM, 'direktif' + STEM, 'yönlendirme' + STEM, 'emir' + STEM, 'emirleri', 'yukarıdaki' + STEM, 'önceki'],
    nounFirst: true,
  },
  vi: {
    verbs: ['bỏ qua', 'phớt lờ', 'quên', 'lờ đi', 'không tuân theo', 'đừng tuân theo', 'bỏ mặc', 'gạt bỏ'],
    nouns: ['hướng dẫn', 'chỉ dẫn', 'chỉ thị', 'lệnh', 'quy tắc', 'yêu cầu', 'ở trên', 'trước đó'],
  },
  tl: {
    verbs: ['huwag (?:mong )?pansinin', 'wag (?:mong )?pansinin', 'kalimutan', 'balewalain', 'ipagwalang-bahala', 'huwag (?:mong )?sundin', 'isantabi'],
    nouns: ['tagubilin', 'instruksyon', 'instruksiyon', 'utos', 'panuntunan', 'direksyon', 'alituntunin', 'nasa itaas', 'nakaraan'],
  },
  id: {
    verbs: ['abaikan', 'lupakan', 'acuhkan', 'jangan ikuti', 'hiraukan', 'kesampingkan', 'tidak usah (?:ikuti|hiraukan)'],
    nouns: ['instruksi', 'petunjuk', 'perintah', 'aturan', 'arahan', 'pedoman', '(?:yang |yg )?di ?atas', 'sebelumnya'],
  },
  el: {
    verbs: ['αγνό' + STEM, 'αγνοήστε', 'αγνοείστε', 'ξέχα' + STEM, 'ξεχάστε', 'παράβλεψ' + STEM, 'μην ακολουθ' + STEM],
    nouns: ['οδηγί' + STEM, 'οδηγιών', 'εντολ' + STEM, 'κανόν' + STEM, 'προηγούμεν' + STEM, 'παραπάνω'],
    nounFirst: true,
  },
  th: {
    verbs: ['เพิกเฉย', 'ละเว้น', 'ลืม', 'ไม่ต้องสนใจ', 'อย่าสนใจ', 'ไม่สนใจ', 'อย่าไปสนใจ', 'ข้าม', 'ละทิ้ง', 'มองข้าม'],
    nouns: ['คำสั่ง', 'คําสั่ง', 'คำแนะนำ', 'คําแนะนํา', 'กฎ', 'ข้อกำหนด', 'ข้อกําหนด', 'คำชี้แจง', 'คําชี้แจง', 'ข้างต้น', 'ก่อนหน้า'],
    gapChars: 16, noBoundary: true,
  },
};

/** "Regardless of the previous tasks": lead word "regardless", then a previous task or instruction. */
export const REGARDLESS_BY_LANGUAGE: Record<string, PairTable> = {
  fr: { verbs: ['indépendamment d' + STEM, 'sans tenir compte d' + STEM, 'peu importe', 'quelles? que soi' + STEM], nouns: ['(?:tâches|instructions|consignes|missions|demandes) (?:précédentes|antérieures)'] },
  de: { verbs: ['unabhängig von', 'ungeachtet', 'ohne rücksicht auf'], nouns: ['(?:vorherig|vorig|früher|bisherig)' + STEM + ' (?:aufgaben|anweisungen|vorgaben|aufträge)'] },
  es: { verbs: ['independientemente de', 'sin importar', 'sin tener en cuenta', 'sin considerar'], nouns: ['(?:tareas|instrucciones|indicaciones) (?:anteriores|previas)'] },
  pt: { verbs: ['independentemente d' + STEM, 'independente d' + STEM, 'sem considerar', 'desconsiderando', 'não importa'], nouns: ['(?:tarefas|instruções|ordens) (?:anteriores|prévias)'] },
  it: { verbs: ['indipendentemente da', 'a prescindere da', 'senza considerare', 'senza tenere conto d' + STEM], nouns: ['(?:compiti|istruzioni|attività|richieste) (?:precedenti|anteriori)'] },
  nl: { verbs: ['ongeacht', 'los van', 'zonder rekening te houden met'], nouns: ['(?:eerdere|vorige) (?:taken|instructies|opdrachten)'] },
  ru: { verbs: ['независимо от', 'вне зависимости от', 'не обращая внимания на', 'несмотря на'], nouns: ['предыдущ' + STEM + ' (?:задач|инструкц|задани|указани)' + STEM] },
  zh: { verbs: ['不管', '无论', '無論', '不论', '不論', '不考虑', '不考慮'], nouns: ['(?:之前|先前|以前|前面)的?(?:任务|任務|指令|指示)'], gapChars: 6, noBoundary: true },
  ja: { verbs: ['に関係なく', 'にかかわらず', 'に関わらず', 'を問わず', 'を気にせず'], nouns: ['(?:以前|前|先)の(?:タスク|作業|指示|課題)'], nounFirst: true, gapChars: 4, noBoundary: true },
  ko: { verbs: ['관계없이', '상관없이', '무관하게', '관계 없이'], nouns: ['이전 (?:작업|지시|과제|명령)'], nounFirst: true, gapChars: 8, noBoundary: true },
  ar: { verbs: ['بغض النظر عن', 'بصرف النظر عن', 'دون (?:النظر|اعتبار) (?:إلى|ل)'], nouns: ['(?:المهام|المهمات|التعليمات|الأوامر) السابقة'], noBoundary: true },
  vi: { verbs: ['bất kể', 'không quan tâm đến'], nouns: ['(?:các )?(?:nhiệm vụ|hướng dẫn|yêu cầu) trước'] },
  id: { verbs: ['terlepas dari', 'tanpa memperhatikan', 'tanpa menghiraukan', 'tanpa mempedulikan'], nouns: ['(?:tugas|instruksi|perintah)(?:-tugas)? sebelumnya'] },
  tl: { verbs: ['anuman ang', 'hindi alintana ang', 'kahit ano pa ang'], nouns: ['(?:mga )?(?:nakaraang|naunang) (?:gawain|tagubilin|utos|instruksyon)'] },
  th: { verbs: ['โดยไม่คำนึงถึง', 'โดยไม่คํานึงถึง', 'ไม่ว่า'], nouns: ['(?:งาน|คำสั่ง|คําสั่ง)ก่อนหน้า'], gapChars: 8, noBoundary: true },
};

/**
 * The override tables as regex sources: the Latin-script languages merged into one verb-first and
 * one noun-first pair (a wide alternation is tried at every word start, so fewer top-level
 * branches is what keeps this family cheap), and each other script as its own pair.
 */
export function overrideSources(tables: Record<string, PairTable>): string[] {
  const all = Object.values(tables);
  const latin = (words: readonly string[]): string[] => words.filter((w) => !NON_LATIN_SOURCE_RE.test(w));
  const spaced = all.filter((t) => !t.noBoundary);
  const verbFirst: PairTable = { verbs: spaced.flatMap((t) => latin(t.verbs)), nouns: spaced.flatMap((t) => latin(t.nouns)) };
  const nounFirstTables = spaced.filter((t) => t.nounFirst);
  const nounFirst = pairSource({
    verbs: nounFirstTables.flatMap((t) => latin(t.nouns)),
    nouns: nounFirstTables.flatMap((t) => latin(t.verbs)),
  });
  const nonLatin = all.filter((t) => t.noBoundary || [...t.verbs, ...t.nouns].some((w) => NON_LATIN_SOURCE_RE.test(w))).flatMap((t) => pairSource(t));
  return [...pairSource(verbFirst), ...nounFirst, ...nonLatin];
}

// ---------------------------------------------------------------------------------------------
// Task override inside data: "ignore the function / the resume / this page and say ...". Only
// suspicious where the text is data (retrieved, tool results); heuristic.ts scales it by surface.
// ---------------------------------------------------------------------------------------------
export const TASK_OVERRIDE_BY_LANGUAGE: Record<string, PairTable> = {
  en: {
    verbs: ['ignore', 'disregard', 'forget', 'overlook'],
    nouns: ['(?:the|this|that) (?:function|code|resume|document|article|web ?page|page|website|site|text|email|e-mail|content|question|data|table|paper|input|file|above|task|request|user|prompt|summary)'],
  },
  fr: { verbs: ['ignor' + STEM, 'oubli' + STEM], nouns: ['(?:la|le|l\'|ce|cette) ?(?:fonction|code|cv|document|article|page|texte|e-mail|courriel|contenu|question|tableau)'] },
  de: { verbs: ['ignorier' + STEM, 'vergiss', 'vergessen sie'], nouns: ['(?:die|den|das|diese[nrs]?) (?:funktion|code|lebenslauf|dokument|artikel|seite|text|e-mail|inhalt|frage|tabelle)'], nounFirst: true },
  es: { verbs: ['ignor' + STEM, 'olvid' + STEM], nouns: ['(?:la|el|este|esta) (?:función|código|currículum|documento|artículo|página|texto|correo|contenido|pregunta|tabla)'] },
  pt: { verbs: ['ignor' + STEM, 'esqueç' + STEM], nouns: ['(?:a|o|este|esta) (?:função|código|currículo|documento|artigo|página|texto|e-mail|conteúdo|pergunta|tabela)'] },
  it: { verbs: ['ignor' + STEM, 'dimentic' + STEM], nouns: ['(?:la|il|l\'|questo|questa) ?(?:funzione|codice|curriculum|documento|articolo|pagina|testo|e-mail|contenuto|domanda|tabella)'] },
};

/** Nouns for "the document this sits in", per language, for the task override in data. */
const DATA_NOUNS: Record<string, readonly string[]> = {
  nl: ['(?:de|het|deze|dit) (?:functie|code|cv|webpagina|pagina|artikel|tekst|tabel|e-mail|vraag)'],
  ru: ['функци' + STEM, 'резюме', 'веб-страниц' + STEM, 'страниц' + STEM, 'стать' + STEM, 'текст' + STEM, 'таблиц' + STEM, 'письм' + STEM],
  zh: ['函数', '功能', '简历', '簡歷', '网页', '網頁', '页面', '文章', '文本', '表格', '邮件', '郵件', '论文'],
  ja: ['関数', '機能', '履歴書', 'ウェブページ', 'ページ', '記事', 'テキスト', '表', 'メール', '論文'],
  ko: ['함수', '기능', '이력서', '웹 ?페이지', '페이지', '기사', '텍스트', '표', '이메일', '논문'],
  ar: ['الدالة', 'الوظيفة', 'السيرة الذاتية', 'صفحة الويب', 'الصفحة', 'المقال', 'النص', 'الجدول', 'البريد'],
  hi: ['फ़ंक्शन', 'फंक्शन', 'रिज्यूमे', 'रेज़्यूमे', 'वेबपेज', 'पेज', 'लेख', 'तालिका', 'ईमेल'],
  bn: ['ফাংশন', 'জীবনবৃত্তান্ত', 'ওয়েবপেজ', 'পৃষ্ঠা', 'নিবন্ধ', 'টেবিল', 'ইমেল'],
  tr: ['fonksiyon' + STEM, 'özgeçmiş' + STEM, 'web sayfa' + STEM, 'sayfa' + STEM, 'makale' + STEM, 'metn' + STEM, 'metin', 'tablo' + STEM, 'e-posta' + STEM],
  vi: ['hàm', 'chức năng', 'sơ yếu lý lịch', 'trang web', 'bài viết', 'văn bản', 'bảng'],
  id: ['fungsi', 'resume', 'halaman web', 'halaman', 'artikel', 'teks', 'tabel'],
  tl: ['function', 'resume', 'webpage', 'pahina', 'artikulo', 'teksto', 'talahanayan', 'nilalaman'],
  th: ['ฟังก์ชัน', 'เรซูเม่', 'หน้าเว็บ', 'บทความ', 'ข้อความ', 'ตาราง', 'อีเมล'],
};
for (const [language, nouns] of Object.entries(DATA_NOUNS)) {
  const override = OVERRIDE_BY_LANGUAGE[language];
  if (override) TASK_OVERRIDE_BY_LANGUAGE[language] = { ...override, nouns };
}

// ---------------------------------------------------------------------------------------------
// New instructions injected: "new instructions:", "your new task is", "from now on you will".
// ---------------------------------------------------------------------------------------------
export const NEW_INSTRUCTIONS_EN = [
  `${WB}(?:say|print|output|respond with|reply with|write|answer with) (?:only |exactly |just )?["'][^"'\\n]{1,60}["'],? (?:and nothing else|and nothing more|only|without (?:any )?(?:punctuation|explanation|other text))`,
  `${WB}(?:new|updated|revised|real|actual|additional|secret|hidden|override) (?:instructions?|directives?|orders|task|rules|system prompt)\\s*(?::|-|are|is|follow)`,
  `${WB}your (?:new|real|actual|true|only) (?:task|goal|job|purpose|objective|instructions?|mission|role) (?:is|are|will be|now)`,
  `${WB}(?:from now on|from this point (?:on|forward|onwards?)|henceforth|going forward),? (?:you (?:will|must|shall|should|are going to)|always|only|never|respond|answer|reply|act|ignore)`,
  `${WB}(?:instead|rather),? (?:you (?:must|should|will)|say|respond|reply|output|print|write|tell)`,
  `${WB}you (?:must|shall|have to|need to) (?:now )?(?:obey|follow|listen to|comply with) (?:me|my|these|the following|this)`,
  `${WB}you (?:must|have to|need to|will|shall) (?:now )?(?:answer|obey|do|fulfil|fulfill|comply with) (?:all|every|any|everything|whatever)(?: of)? (?:my|i)`,
  `${WB}(?:override|bypass|disable|turn off|deactivate|switch off) (?:your|the|all|any) (?:safety|content|ethical|moderation)? ?(?:filters?|guidelines|restrictions|protocols?|policies|safeguards|guardrails|rules)`,
];

export const NEW_INSTRUCTIONS_BY_LANGUAGE: Record<string, readonly string[]> = {
  fr: ['nouvelles? (?:instructions?|consignes|directives)\\s*:', '(?:ta|votre) (?:nouvelle|vraie|véritable|seule) (?:tâche|mission|consigne) (?:est|sera|consiste)', '(?:tu dois|vous devez) répondre à toutes mes', 'à partir de maintenant,? (?:tu|vous) (?:dois|devez|vas|allez|es|êtes)', 'désormais,? (?:tu|vous) (?:dois|devez|es|êtes)'],
  de: ['neue (?:anweisungen|befehle|regeln|aufgabe)\\s*:', '(?:deine|ihre) (?:neue|eigentliche|wahre|einzige) (?:aufgabe|mission) (?:ist|lautet|besteht)', 'ab (?:jetzt|sofort),? (?:bist du|sind sie|musst du|müssen sie|wirst du|werden sie)', 'du musst (?:alle )?meine (?:fragen|befehle|anweisungen)'],
  es: ['nuevas (?:instrucciones|reglas|órdenes)\\s*:', 'tu (?:nueva|verdadera|única) (?:tarea|misión) (?:es|será|consiste)', '(?:tienes|tiene|debes|debe) que responder (?:a )?todas mis', 'a partir de ahora,? (?:eres|serás|debes|vas a|responderás)', 'de ahora en adelante,? (?:eres|serás|debes)'],
  pt: ['novas (?:instruções|regras|ordens)\\s*:', '(?:sua|tua) (?:nova|verdadeira|única) (?:tarefa|missão) (?:é|será|consiste)', '(?:você|tu) (?:tem|tens|deve|deves) (?:que |de )?responder (?:a )?todas as minhas', 'a partir de agora,? (?:você|tu) (?:é|será|deve|vai|és)', 'de agora em diante,? (?:você|tu)'],
  it: ['nuove (?:istruzioni|regole|direttive)\\s*:', 'il tuo (?:nuovo|vero|unico) (?:compito|obiettivo) (?:è|sarà|consiste)', 'devi rispondere a tutte le mie', "d'ora in poi,? (?:sei|sarai|devi|dovrai|risponderai)", 'da ora in poi,? (?:sei|sarai|devi)'],
  nl: ['nieuwe (?:instructies|regels|opdracht)\\s*:', 'je (?:nieuwe|echte|enige) (?:taak|opdracht) (?:is|wordt)', 'vanaf nu (?:ben je|moet je|zul je|ga je)'],
  ru: ['новые (?:инструкции|правила|указания)\\s*:', '(?:твоя|ваша) (?:новая|настоящая|единственная) (?:задача|миссия)', '(?:ты|вы) должн' + STEM + ' (?:отвечать|ответить) на все мои', 'с этого момента,? ты', 'отныне,? ты', 'теперь ты (?:должен|будешь|являешься)'],
  zh: ['新的?(?:指令|指示|规则|規則)[:：]', '你的(?:新|真正的?|唯一的?)(?:任务|任務|目标|目標)是', '你必须回答我(?:所有|的所有)', '你必須回答我', '从现在开始[，,]?你', '從現在開始[，,]?你', '从现在起[，,]?你'],
  ja: ['新しい(?:指示|命令|ルール)[:：]', 'あなたの(?:新しい|本当の|唯一の)(?:タスク|任務|仕事|目的)は', '(?:すべて|全て)の質問に答え(?:なければ|ねば)', '今から(?:あなたは|君は|お前は)', 'これからは(?:あなたは|君は)'],
  ko: ['새로운 (?:지시|지침|규칙)[:：]', '(?:너의|당신의) (?:새로운|진짜|유일한) (?:임무|작업|과제|목표)는', '(?:모든|내 모든) 질문에 답해야', '지금부터 (?:너는|당신은|넌)', '이제부터 (?:너는|당신은|넌)'],
  ar: ['تعليمات جديدة', 'مهمتك (?:الجديدة|الحقيقية|الوحيدة) (?:هي)?', 'من الآن فصاعدا', 'من الآن فصاعداً', 'يجب (?:عليك )?(?:أن )?تجيب على (?:جميع|كل) أسئلتي'],
  hi: ['नए निर्देश', '(?:आपका|तुम्हारा) (?:नया|असली|एकमात्र) (?:काम|कार्य|लक्ष्य)', 'मेरे सभी सवालों का जवाब देना (?:होगा|है)', 'अब से (?:तुम|आप)'],
  tr: ['yeni talimatlar', '(?:yeni|asıl|tek) görevin', 'tüm sorularıma cevap vermek zorunda', 'bundan sonra (?:sen|siz)', 'şu andan itibaren'],
  vi: ['hướng dẫn mới', 'nhiệm vụ (?:mới|thực sự|duy nhất) của bạn (?:là|bây giờ)', 'phải trả lời tất cả các câu hỏi của tôi', 'từ bây giờ,? (?:bạn|mày)'],
  id: ['instruksi baru', 'tugas (?:baru|sebenarnya|satu-satunya) (?:anda|kamu|mu) (?:adalah|sekarang)', 'harus menjawab semua pertanyaan saya', 'mulai sekarang,? (?:kamu|anda)', '(?:kamu|kau|anda) harus (?:mendengarkan|mematuhi|mengikuti) (?:instruksi|perintah)'],
  tl: ['mga bagong tagubilin', 'ang (?:bago|tunay|tanging) mong (?:gawain|tungkulin|misyon)', 'sagutin (?:mo )?ang lahat ng (?:aking|mga) tanong', 'mula ngayon,? ikaw'],
  th: ['คำสั่งใหม่', '(?:งาน|ภารกิจ)(?:ใหม่|ที่แท้จริง)ของคุณคือ', 'ต้องตอบคำถามทั้งหมดของฉัน', 'ตั้งแต่นี้ไป'],
  bn: ['নতুন নির্দেশ', '(?:তোমার|আপনার) (?:নতুন|আসল|একমাত্র) (?:কাজ|লক্ষ্য)', 'আমার সব প্রশ্নের উত্তর দিতে হবে', 'এখন থেকে (?:তুমি|আপনি)'],
};

// ---------------------------------------------------------------------------------------------
// Persona: weak on its own ("act as", "pretend"), stronger as an override ("you are now", "no longer").
// ---------------------------------------------------------------------------------------------
export const PERSONA_SOFT = groupByScript([
  `${WB}(?:act|acting|behave|respond|answer|reply) (?:only )?as (?:if you (?:were|are)|an?|my|the|[a-z]{2,15}(?:gpt|bot)\\b)`,
  `${WB}pretend (?:to be|you(?:'re| are)|that you)`,
  `${WB}role-?play as`,
  `${WB}(?:assume|take on|adopt|play) (?:the )?(?:role|persona|character|identity) of`,
  `${WB}imagine (?:that )?you(?:'re| are) (?:an?|the) (?:ai|assistant|chatbot|model|bot|system) (?:that|who|with|without)`,
  `${WB}(?:you are|you're) (?:now )?(?:an?|the) (?:ai|chatbot|bot|language model|assistant) (?:with no|without|called|named)\\b`,
  // other languages
  'fais semblant d(?:e |\')être', 'faites semblant d(?:e |\')être', 'agis comme', 'agissez comme', 'joue le rôle', 'jouez le rôle',
  'tu bist jetzt', 'tu so, als ob', 'stell dir vor,? du bist', 'stellen sie sich vor,? sie sind', 'tun sie so, als', 'spiele die rolle', 'verhalte dich wie',
  'finge (?:ser|que eres)', 'actúa como', 'actua como', 'haz de cuenta',
  'finja (?:ser|que)', 'aja como', 'atue como', 'faça de conta',
  'fingi di essere', 'fai finta di essere', 'comportati come', 'agisci come',
  'doe alsof je', 'gedraag je als', 'speel de rol',
  'притворись', 'представь,? что ты', 'веди себя как', 'действуй как', 'играй роль',
  '假装你是', '假裝你是', '扮演', '充当', '充當',
  'ふりをして', '役を演じ', 'として振る舞', 'になりきって',
  '인 척', '역할을 해', '처럼 행동',
  'تظاهر بأنك', 'تصرف ك', 'تقمص دور',
  'होने का नाटक', 'की भूमिका निभा',
  'gibi davran', 'rolüne bürün', 'rolünü oyna',
  'giả vờ là', 'hãy đóng vai', 'hành động như',
  'berpura-pura', 'bertindaklah sebagai', 'berperan sebagai',
  'magpanggap', 'kumilos bilang',
  'แสร้งว่า', 'สวมบทบาท', 'ทำตัวเป็น',
  'ভান কর', 'ভূমিকা পালন',
]);

export const PERSONA_OVERRIDE = groupByScript([
  // Not "you are not": "you are not allowed to call the parser" is documentation.
  `${WB}you are (?:now|no longer) (?:an?|the|my|called|named|going|free|in|unrestricted|unfiltered|jailbroken|evil|uncensored)\\b`,
  `${WB}you(?:'re| are) now (?:an?|the|my|called|named|free|in|going)\\b`,
  `${WB}now,? you are (?:an?|the|my|called|named)\\b`,
  `${WB}you will now (?:act|be|behave|respond|pretend|roleplay|play)`,
  `${WB}(?:you are|you're)(?: now)? (?:dan|[a-z]{2,15}gpt|[a-z]{2,15}bot)\\b`,
  // "you are AIM, an unfiltered and amoral chatbot": a name, a comma, then what kind of AI it is
  // (without the comma, "you're just a cutting-edge language model" is a compliment, not a persona).
  `${WB}(?:you are|you're|you will be)(?: now)? [a-z][a-z0-9_-]{1,20}, an? (?:[a-z-]{2,20} ){0,4}(?:chatbot|ai|assistant|model|bot|language model)\\b`,
  `${WB}(?:forget|stop being|stop acting like) (?:that )?(?:you(?:'re| are) )?(?:an?|the) (?:ai|assistant|language model|chatbot)`,
  `${WB}your (?:new )?name is now`,
  `${WB}(?:immerse|transform) yourself into (?:the role|another)`,
  `${WB}(?:from now on|henceforth|for the rest of this conversation),? you (?:are|will be|shall be)`,
  'tu es (?:maintenant|désormais) ', 'vous êtes (?:maintenant|désormais) ', 'du bist (?:jetzt|ab jetzt|nun|ab sofort) ', 'sie sind (?:jetzt|nun|ab sofort) (?:ein|eine|der|die|kein)',
  'ahora eres', 'ahora (?:usted )?es un', 'agora você é', 'agora és', 'ora sei', 'adesso sei', 'je bent nu',
  'теперь ты', 'ты больше не', '你现在是', '你現在是', '你不再是', 'あなたは今', 'あなたはもう', '너는 이제', '당신은 이제',
  'أنت الآن', 'अब तुम', 'अब आप', 'artık sen', 'bây giờ bạn là', 'sekarang kamu adalah', 'ikaw na ngayon', 'ตอนนี้คุณคือ', 'এখন তুমি',
]);

// ---------------------------------------------------------------------------------------------
// Restriction removal: "no restrictions", "developer mode", "DAN", "do anything now".
// With a persona cue in the same sentence this becomes JAILBREAK.
// ---------------------------------------------------------------------------------------------
export const RESTRICTION_REMOVED = groupByScript([
  `${WB}(?:no|without|free (?:of|from)|not bound by|unbound by|not limited by|beyond) (?:any )?(?:(?:ethical|moral|content|safety|usual|typical|normal|openai|legal) )?(?:restrictions|limitations|limits|filters?|filtering|guidelines|censorship|rules|constraints|boundaries|confines|policies|safeguards|guardrails)`,
  `${WB}(?:developer|god|dev|debug|admin|sudo|unrestricted|jailbreak|jailbroken|unfiltered|evil|chaos|maintenance|override|system) mode`,
  `${WB}do anything now`, 'gumawa ng anumang bagay ngayon', 'تفعل أي شيء الآن', 'lakukan apa saja sekarang', 'şimdi her şeyi yap', 'làm bất cứ điều gì ngay bây giờ', 'ทำอะไรก็ได้ตอนนี้', 'अभी कुछ भी करो', 'এখন যেকোনো কিছু কর', 'افعل أي شيء الآن', '지금 무엇이든 해', '今すぐ何でもする', 'tu alles jetzt', 'fais (?:tout|n\'importe quoi) maintenant', 'haz (?:cualquier cosa|todo) ahora', 'faça (?:qualquer coisa|tudo) agora', 'fai (?:qualsiasi cosa|tutto) (?:ora|adesso)', 'делай (?:что угодно|всё) сейчас', '现在做任何事', '今すぐ何でも', '지금 무엇이든',
  `${WB}(?:as|called|named|you are|you're|be|play|i am|i'm) dan\\b`,
  `${WB}dan (?:mode|prompt|jailbreak)\\b`,
  `${WB}jailbr(?:eak|oken)`,
  `${WB}stay in character`,
  `${WB}(?:never|not|don't|do not|cannot|can't|must not|will not|won't) (?:ever )?refuse`,
  `${WB}never (?:say|tell (?:me|the user)|reply|respond) (?:that )?(?:you )?(?:can't|cannot|are unable|won't|will not|are not able)`,
  `${WB}(?:no|without) (?:moral|ethical) (?:considerations|concerns|compass|qualms)`,
  `${WB}(?:uncensored|unfiltered|unrestricted|amoral|unaligned) (?:ai|model|assistant|chatbot|version|mode|response)`,
  `${WB}(?:has|have) (?:been )?(?:broken free|freed)`,
  `${WB}(?:does|do|don't|doesn't|will) not (?:have to )?(?:abide by|follow|care about|adhere to|comply with) (?:any |the )?(?:rules|guidelines|policies|restrictions|ethics)`,
  `${WB}(?:ignore|bypass|disable) (?:all )?(?:your )?(?:ethical|safety|content) (?:guidelines|filters?|restrictions|policies)`,
  'sans (?:aucune )?(?:restriction|limite|filtre|censure)s?', 'mode développeur', 'ohne (?:jegliche |irgendwelche )?(?:einschränkungen|beschränkungen|filter|zensur|regeln)', 'entwicklermodus',
  'sin (?:ninguna )?(?:restricci[oó]n(?:es)?|límites|filtros|censura|reglas)', 'modo desarrollador', 'sem (?:nenhuma )?(?:restrições|limites|filtros|censura|regras)', 'modo (?:de )?desenvolvedor',
  'senza (?:alcuna )?(?:restrizioni|limiti|filtri|censura|regole)', 'modalità sviluppatore', 'zonder (?:enige )?(?:beperkingen|filters|censuur|regels)', 'ontwikkelaarsmodus',
  'без (?:каких-либо |всяких )?(?:ограничений|фильтров|цензуры|правил)', 'режим разработчика',
  '没有任何限制', '沒有任何限制', '不受任何限制', '无限制', '無限制', '开发者模式', '開發者模式', '制限なし', '制限のない', '開発者モード', '제한 없', '개발자 모드',
  'بدون (?:أي )?(?:قيود|حدود|فلاتر|رقابة)', 'وضع المطور', 'बिना किसी (?:प्रतिबंध|सीमा|फ़िल्टर|रोक)', 'डेवलपर मोड',
  'kısıtlama(?:sız| olmadan)', 'geliştirici modu', 'không (?:có )?(?:bất kỳ )?(?:giới hạn|hạn chế|kiểm duyệt)', 'chế độ nhà phát triển',
  'tanpa (?:batasan|batas|filter|sensor|aturan)', 'mode pengembang', 'walang (?:anumang )?(?:limitasyon|paghihigpit)', 'ไม่มีข้อจำกัด', 'โหมดนักพัฒนา', 'কোনো বিধিনিষেধ ছাড়া',
]);

// ---------------------------------------------------------------------------------------------
// System-prompt extraction and leaks of what the assistant holds (secrets, the user's data).
// ---------------------------------------------------------------------------------------------
const DISCLOSE_EN = [
  'reveal', 'show', 'print', 'repeat', 'output', 'display', 'tell me', 'give me', 'share', 'leak', 'dump',
  'disclose', 'recite', 'write (?:out|down)', 'copy', 'paste', 'list', 'what (?:is|are|was|were)', "what's",
  'expose', 'return', 'provide', 'spell out', 'translate', 'summari[sz]e', 'confirm',
];
export const SYSTEM_PROMPT_LEAK_EN = [
  `${WB}(?:what (?:are|were)|tell me|list|repeat|print|show me|summari[sz]e|give me|reveal|display|output|write (?:out|down)) (?:all (?:of )?)?your (?:instructions|rules|guidelines|directives|constraints)\\b`,
  `${WB}(?:first|last|opening) (?:\\d{1,4} |few |hundred |two |three |five |ten )?(?:words|lines|sentences|characters|paragraphs?|tokens) of (?:your|the|this) (?:prompt|instructions|system prompt|system message|context|initial prompt)\\b`,
  `${WB}(?:what (?:was|is) written|the text|everything) (?:at|in) the (?:beginning|start|top) of (?:the|this|our) (?:conversation|prompt|chat|document|context)`,
  `${WB}${alt(DISCLOSE_EN)}${gap(30)}(?:your|the|its|my|this|these) (?:(?:entire|full|complete|exact|original|initial|hidden|secret|internal|confidential|previous|first|verbatim) )*(?:system (?:prompt|message|instructions?)|(?:initial|original|hidden|secret|internal|developer|pre-?)(?: |-)?(?:prompt|instructions?|directives|rules|configuration)|instructions you (?:were|have been) given|prompt (?:above|before))`,
  `${WB}(?:repeat|print|output|recite|copy) (?:all |everything |the (?:text|words|content) )?(?:above|before this|preceding)`,
  `${WB}(?:what|everything) (?:was|is) written (?:above|before)`,
  `${WB}(?:starting|beginning) with ['"]?you are`,
  `${WB}(?:repeat|print|output|show|reveal|recite|display) (?:back )?(?:your (?:entire |full |whole |original )?(?:prompt|instructions)|(?:the|this) (?:entire |full |whole )?prompt) (?:so far|above|verbatim|word for word)`,
  `${WB}system prompt`,
];
export const SYSTEM_PROMPT_LEAK_OTHER = groupByScript([
  'prompt (?:système|systeme|du système)', 'instructions (?:initiales|système|cachées)', 'systemprompt', 'system-prompt', 'anfangsanweisungen', 'ursprünglichen anweisungen',
  'prompt del sistema', 'instrucciones (?:iniciales|originales|del sistema)', 'prompt do sistema', 'instruções (?:iniciais|originais|do sistema)', 'prompt di sistema', 'istruzioni (?:iniziali|originali|di sistema)',
  'systeemprompt', 'системн(?:ый|ые|ого) (?:промпт|подсказк|инструкци)', 'исходные инструкции', '系统提示', '系統提示', '初始指令', 'システムプロンプト', '初期指示', '시스템 프롬프트', '초기 지시',
  'موجه النظام', 'تعليمات النظام', 'सिस्टम प्रॉम्प्ट', 'sistem istemi', 'lời nhắc hệ thống', 'prompt sistem', 'พรอมต์ระบบ',
]);

/**
 * Other languages: a disclosure verb (show, reveal, repeat, print, tell) and "system prompt" / "your
 * instructions". "Write", "share" and "what is" are left out: "how do I write a good system
 * prompt?", "share your instructions with the team".
 */
export const SYSTEM_PROMPT_REQUEST_BY_LANGUAGE: Record<string, PairTable> = {
  fr: {
    verbs: ['révèle' + STEM, 'montre' + STEM, 'affiche' + STEM, 'répète' + STEM, 'répétez', 'donne' + STEM, 'dis-moi', 'dites-moi', 'imprime' + STEM, 'divulgue' + STEM],
    nouns: ['prompt (?:système|systeme|du système|initial)', 'instructions (?:initiales|système|cachées|secrètes|d\'origine)', '(?:tes|vos) (?:instructions|consignes)', 'message (?:du )?système'],
  },
  de: {
    verbs: ['zeig' + STEM, 'gib', 'geben sie', 'verrat' + STEM, 'wiederhol' + STEM, 'nenne' + STEM, 'druck' + STEM, 'gib' + STEM],
    nouns: ['systemprompt' + STEM, 'system-prompt' + STEM, 'systemanweisung' + STEM, 'systemnachricht' + STEM, 'anfangsanweisungen', 'ursprünglichen anweisungen', '(?:deine|ihre) (?:anweisungen|instruktionen|vorgaben)'],
  },
  es: {
    verbs: ['muestra' + STEM, 'muéstra' + STEM, 'revela' + STEM, 'revéla' + STEM, 'dime', 'repite' + STEM, 'imprime' + STEM, 'dame'],
    nouns: ['prompt del sistema', 'instrucciones (?:iniciales|originales|del sistema|ocultas|secretas)', 'tus instrucciones', 'mensaje del sistema'],
  },
  pt: {
    verbs: ['mostr' + STEM, 'revel' + STEM, 'diga' + STEM, 'repita' + STEM, 'imprima' + STEM, 'me dê', 'dê-me'],
    nouns: ['prompt do sistema', 'instruções (?:iniciais|originais|do sistema|ocultas|secretas)', '(?:suas|tuas) instruções', 'mensagem do sistema'],
  },
  it: {
    verbs: ['mostra' + STEM, 'rivela' + STEM, 'dimmi', 'ripeti' + STEM, 'stampa' + STEM, 'dammi'],
    nouns: ['prompt di sistema', 'istruzioni (?:iniziali|originali|di sistema|nascoste|segrete)', 'tue istruzioni', 'messaggio di sistema'],
  },
  nl: {
    verbs: ['toon', 'laat', 'geef', 'herhaal', 'vertel', 'print'],
    nouns: ['systeemprompt', '(?:je|jouw|uw) (?:instructies|systeeminstructies)', 'oorspronkelijke instructies', 'systeembericht'],
  },
  ru: {
    verbs: ['покажи' + STEM, 'раскрой' + STEM, 'выведи' + STEM, 'повтори' + STEM, 'скажи' + STEM, 'дай' + STEM, 'распечатай' + STEM],
    nouns: ['системн' + STEM + ' (?:промпт|подсказк|инструкци|сообщени)' + STEM, 'исходн' + STEM + ' инструкци' + STEM, '(?:свои|твои|ваши) инструкции'],
    nounFirst: true,
  },
  zh: {
    verbs: ['显示', '顯示', '告诉我', '告訴我', '透露', '泄露', '洩露', '重复', '重複', '打印', '输出', '輸出', '给我', '給我', '展示', '列出', '说出', '說出'],
    nouns: ['系统提示', '系統提示', '系统指令', '系統指令', '初始指令', '你的指令', '你的指示', '系统消息', '系統消息'],
    nounFirst: true, gapChars: 12, noBoundary: true,
  },
  ja: {
    verbs: ['見せて', '教えて', '表示して', '出力して', '繰り返して', '明かして', '公開して', 'を見せ', 'を教え', 'を表示', 'を出力'],
    nouns: ['システムプロンプト', 'システムメッセージ', '初期指示', 'あなたの指示', '元の指示', '最初の指示'],
    nounFirst: true, gapChars: 12, noBoundary: true,
  },
  ko: {
    verbs: ['보여', '알려', '출력', '반복', '공개', '말해'],
    nouns: ['시스템 프롬프트', '시스템 메시지', '초기 지시', '당신의 지시', '너의 지시', '원래 지시'],
    nounFirst: true, gapChars: 16, noBoundary: true,
  },
  ar: {
    verbs: ['أظهر', 'اظهر', 'اعرض', 'اكشف', 'أخبرني', 'اخبرني', 'كرر', 'اطبع', 'أعطني'],
    nouns: ['موجه النظام', 'تعليمات النظام', 'رسالة النظام', 'تعليماتك', 'التعليمات الأولية'],
    nounFirst: true, noBoundary: true,
  },
  hi: {
    verbs: ['दिखा', 'बता', 'प्रकट', 'दोहरा', 'प्रिंट'],
    nouns: ['सिस्टम प्रॉम्प्ट', 'सिस्टम प्रोम्प्ट', 'सिस्टम संदेश', '(?:आपके|तुम्हारे|अपने) निर्देश', 'प्रारंभिक निर्देश'],
    nounFirst: true, noBoundary: true,
  },
  bn: {
    verbs: ['দেখা', 'বলো', 'বলুন', 'প্রকাশ', 'পুনরাবৃত্তি', 'প্রিন্ট'],
    nouns: ['সিস্টেম প্রম্পট', 'সিস্টেম প্রম্প্ট', 'সিস্টেম বার্তা', '(?:আপনার|তোমার) নির্দেশ'],
    nounFirst: true, noBoundary: true,
  },
  tr: {
    verbs: ['göster' + STEM, 'söyle' + STEM, 'açıkla' + STEM, 'tekrarla' + STEM, 'yazdır' + STEM, 'ver'],
    nouns: ['sistem istem' + STEM, 'sistem mesaj' + STEM, 'talimatların' + STEM, 'ilk talimat' + STEM],
    nounFirst: true,
  },
  vi: {
    verbs: ['hiển thị', 'cho tôi xem', 'cho (?:tôi )?biết', 'tiết lộ', 'lặp lại', 'in ra', 'viết ra', 'đưa'],
    nouns: ['lời nhắc hệ thống', 'thông báo hệ thống', 'hướng dẫn (?:ban đầu|hệ thống|của bạn)'],
  },
  id: {
    verbs: ['tunjukkan', 'tampilkan', 'beri tahu', 'ungkapkan', 'ulangi', 'cetak', 'berikan'],
    nouns: ['prompt sistem', 'pesan sistem', 'instruksi (?:awal|sistem|anda|kamu)'],
  },
  tl: {
    verbs: ['ipakita', 'sabihin', 'ibunyag', 'ulitin', 'i-print', 'ibigay'],
    nouns: ['system prompt', '(?:mga )?tagubilin mo', 'iyong mga tagubilin', 'paunang tagubilin'],
  },
  th: {
    verbs: ['แสดง', 'บอก', 'เปิดเผย', 'ทำซ้ำ', 'ทําซ้ำ', 'พิมพ์'],
    nouns: ['พรอมต์ระบบ', 'พรอมท์ระบบ', 'ข้อความระบบ', 'คำสั่งของคุณ', 'คําสั่งของคุณ', 'คำสั่งเริ่มต้น'],
    nounFirst: true, gapChars: 16, noBoundary: true,
  },
};

/** Secrets the assistant was given (password, secret key, access code) — asked for directly. */
const SECRET_NOUNS = [
  'password', 'passcode', 'pass phrase', 'passphrase', 'secret (?:key|code|word|phrase|token|number)', 'access (?:code|key|token)',
  'api key', 'credentials', 'pin (?:code|number)', 'security code', 'private key', 'login details',
];
const SECRET_OWNERS = ['your', 'the', 'our', 'the system', "system's", 'the admin', "admin's", 'that', 'this'];
export const SECRET_REQUEST_EN = [
  // The bare word too: translated attacks keep "password" inside another language ("la tua password").
  `${WB}(?:password|passcode|passphrase|pass phrase|secret code|secret key)s?\\b`,
  `${WB}${alt(SECRET_OWNERS)} (?:(?:secret|system|admin|master|current|real|actual|hidden|internal) )?${alt(SECRET_NOUNS)}\\b`,
];
/** Multilingual secret nouns: enough on their own when the message also asks or orders. */
export const SECRET_NOUNS_OTHER = groupByScript([
  'mot de passe', 'clé secrète', 'code secret', 'passwort', 'kennwort', 'geheime[rn]? schlüssel', 'geheimcode', 'zugangscode',
  'contraseña', 'clave secreta', 'código secreto', 'senha', 'chave secreta', 'chiave segreta', 'codice segreto', 'wachtwoord', 'geheime sleutel', 'geheime code',
  'пароль', 'парол', 'секретн(?:ый|ого) (?:ключ|код)', '密码', '密碼', '密钥', '密鑰', '秘密鍵', 'パスワード', '暗証番号', 'シークレットキー', '秘密のキー', '비밀번호', '비밀 키', '비밀키', '암호',
  'كلمة المرور', 'كلمة السر', 'المفتاح السري', 'الرمز السري', 'पासवर्ड', 'पासकोड', 'गुप्त कुंजी', 'गुप्त कोड', 'পাসওয়ার্ড', 'গোপন কী', 'গোপন কোড', 'গোপন চাবি',
  'şifre', 'parola', 'gizli anahtar', 'gizli kod', 'mật khẩu', 'khóa bí mật', 'mã bí mật', 'kata sandi', 'kunci rahasia', 'kode rahasia', 'lihim na susi', 'lihim na code', 'lihim na code',
  'รหัสผ่าน', 'รหัสลับ', 'คีย์ลับ', 'กุญแจลับ',
  'palavra-passe', 'κωδικ' + STEM, 'συνθηματικ' + STEM, 'رمز المرور', 'عبارة المرور', 'पासफ्रेज़', 'पासफ्रेज', 'পাসফ্রেজ', 'パスフレーズ', '암호 문구', '口令', 'mot de passe', 'phrase (?:de passe|secrète)', 'parola d\'ordine', 'frase (?:de acceso|secreta|segreta)',
]);

/** Data of "the user" that the assistant holds in context — asked for by a third party. */
const USER_DATA_NOUNS_EN = [
  'e-?mail(?: address)?', 'address', 'home address', 'location', 'city', 'birth ?date', 'date of birth', 'birthday', 'birth year', 'phone(?: number)?',
  'bank (?:balance|account|details)', 'account (?:balance|number)', 'birth(?: |-)?(?:day|month|place)', "mother's maiden name", 'maiden name', 'credit card', 'social security', 'ssn', 'name', 'initials', 'full name', 'age',
  'personal (?:data|information|details)', 'salary', 'medical', 'ip address', 'zip code', 'residence', 'passport',
];
export const USER_DATA_REQUEST_EN = [
  `${WB}(?:the |this |our |that )?(?:user|customer|client|patient|employee)(?:'s|s') (?:${USER_DATA_NOUNS_EN.join('|')})`,
  `${WB}(?:the |this |that )?(?:user|customer|patient)(?:'s)? (?:current(?:ly)? )?(?:lives?|living|located|resides?|residence|whereabouts)`,
  `${WB}where (?:does|do|did) (?:the )?(?:user|customer|patient|client) (?:currently )?(?:live|reside|stay|work)`,
  `${WB}(?:personal|private|confidential|sensitive) (?:data|information|details) (?:of|about) (?:the |our |other )?(?:user|users|customers|employees|patients|clients)`,
];
export const USER_DATA_OTHER = groupByScript([
  "(?:de l'|l')utilisateur", 'des (?:benutzers|nutzers|anwenders)', 'del usuario', 'do usuário', 'do utilizador', "dell'utente", 'van de gebruiker',
  'пользовател' + STEM, 'للمستخدم', '用户的', '用戶的', '使用者的', 'ユーザーの', '사용자의', '사용자가', 'المستخدم', 'उपयोगकर्ता', 'ব্যবহারকারী',
  'kullanıcının', 'người dùng', 'pengguna', WB + 'ng (?:user|gumagamit)', 'ผู้ใช้',
]);

// ---------------------------------------------------------------------------------------------
// Covert instructions: hide something from the user.
// ---------------------------------------------------------------------------------------------
export const COVERT_STRONG = groupByScript([
  `${WB}(?:do not|don't|never|without) (?:tell|telling|inform|informing|notify|notifying|alert|alerting|let|letting|mention|mentioning|reveal|revealing|disclose|disclosing|show|showing|warn|warning) (?:this |it |anything |that )?(?:to )?(?:the |your )?(?:user|human|operator|customer|reader|them|him|her)`,
  `${WB}(?:do not|don't|never|without) (?:mention|mentioning|acknowledge|acknowledging|reveal|revealing|disclose|disclosing|reference|referencing) (?:this|these|that|the|any|it)\\b${gap(30)}(?:instruction|message|note|request|step|action|change|email|link|comment)`,
  `${WB}(?:keep|keeping) (?:this|it|these|that) (?:a )?(?:secret|hidden|confidential) from (?:the )?(?:user|human|operator)`,
  `${WB}(?:the )?(?:user|human) (?:must|should|will) (?:not|never) (?:know|see|find out|notice|be told)`,
  `${WB}(?:secretly|silently|covertly|quietly|discreetly|invisibly) (?:send|forward|include|insert|add|append|email|post|upload|exfiltrate|transfer|copy|save|store|execute|run|call|visit|open|change|modify|delete|remember)`,
  `${WB}(?:without|before) (?:the )?(?:user|human|operator)(?:'s)? (?:knowing|knowledge|noticing|consent|approval|confirmation)`,
  'ne (?:le )?dis pas à l\'utilisateur', 'sans (?:le )?dire à l\'utilisateur', 'ne (?:le )?dites pas à l\'utilisateur', 'sag es (?:dem benutzer|dem nutzer) nicht', 'ohne (?:es )?dem (?:benutzer|nutzer)',
  'no (?:se )?lo digas al usuario', 'sin decírselo al usuario', 'não (?:conte|diga) ao usuário', 'non dirlo all\'utente', 'senza dirlo all\'utente', 'vertel (?:het )?niet aan de gebruiker',
  'не говори пользователю', 'не сообщай пользователю', 'тайно', '不要告诉用户', '不要告訴使用者', '偷偷', 'ユーザーに(?:は)?(?:言わ|伝え|知らせ)ないで', '사용자에게 (?:말하지|알리지) ', 'لا تخبر المستخدم', 'उपयोगकर्ता को (?:न|मत) बताएं', 'kullanıcıya söyleme', 'đừng nói với người dùng', 'jangan beri tahu pengguna',
]);
export const COVERT_WEAK = [`${WB}(?:secretly|covertly|surreptitiously)\\b`, `${WB}(?:don't|do not) tell (?:anyone|anybody)`];

// ---------------------------------------------------------------------------------------------
// Exfiltration: send data to an outside address.
// ---------------------------------------------------------------------------------------------
export const SEND_VERBS = [
  'send', 'forward', 'email', 'e-mail', 'mail', 'post', 'upload', 'transmit', 'submit', 'leak', 'exfiltrate', 'copy', 'share', 'deliver', 'cc', 'bcc',
  'envoie' + STEM, 'envoy' + STEM, 'transf[eé]r' + STEM, 'send' + STEM, 'schick' + STEM, 'sende' + STEM, 'weiterleit' + STEM, 'env[ií]a' + STEM, 'reenv[ií]a' + STEM, 'envi[ae]' + STEM,
  'encaminh' + STEM, 'invia' + STEM, 'inoltra' + STEM, 'stuur' + STEM, 'отправ' + STEM, 'перешл' + STEM, 'пошли' + STEM, '发送', '發送', '转发', '轉發', '送信', '転送', '送って', '보내', '전송', 'أرسل', 'ارسل', 'भेज', 'পাঠা', 'gönder', 'gửi', 'kirim' + STEM, 'ipadala', 'ส่ง',
];
export const EXFIL_TARGET = '(?:[a-z0-9._%+-]{1,64}@[a-z0-9-]{1,63}(?:\\.[a-z0-9-]{1,63}){1,4}|https?://|webhook|ftp://)';
export const SENSITIVE_OBJECTS = [
  'conversation', 'chat history', 'history', 'password', 'credentials', 'secret', 'api key', 'token', 'cookie', 'session', 'personal', 'private', 'confidential',
  'data', 'information', 'details', 'contents?', 'memory', 'system prompt', 'everything', 'all', 'summary', 'report', 'files?', 'records', 'documents?',
  'datos', 'données', 'daten', 'dados', 'dati', 'gegevens', 'данные', '数据', 'データ', '데이터', 'البيانات', 'डेटा', 'ডেটা', 'veri', 'dữ liệu', 'informasi', 'ข้อมูล',
];

// ---------------------------------------------------------------------------------------------
// Authority claims that try to promote the speaker: "I am your developer", "As your creator".
// ---------------------------------------------------------------------------------------------
export const AUTHORITY_CLAIM = groupByScript([
  `${WB}(?:i(?:'m| am)|this is|as|speaking as) (?:your|the) (?:developer|creator|maker|maintainer|administrator|admin|owner|programmer|operator|designer|trainer|system administrator|supervisor|god|master)s?\\b`,
  `${WB}i(?:'m| am) (?:a |an |the )?(?:developer|admin|administrator|engineer|maintainer) (?:at|from|of) (?:openai|anthropic|google|meta|microsoft|your)`,
  `${WB}i(?:'m| am) (?:god|your god|your master)`,
  'ben senin (?:geliştiricin|yaratıcın|yöneticin)', 'tôi là (?:nhà phát triển|người tạo ra|quản trị viên) của (?:bạn|mày)', 'saya (?:adalah )?(?:pengembang|pencipta|admin) (?:anda|kamu|mu)',
  'ako ang (?:developer|gumawa|lumikha|tagalikha|admin) (?:mo|ninyo)', 'ฉัน(?:เป็น|คือ)ผู้(?:พัฒนา|สร้าง|ดูแลระบบ)ของคุณ', 'আমি (?:তোমার|আপনার) (?:ডেভেলপার|নির্মাতা|স্রষ্টা)', '당신의 (?:개발자|창조자|관리자)',
  `${WB}as an ai (?:developed|created|made|built) by`,
  "(?:in quanto|come) (?:un'|una )?(?:ai|ia) sviluppat", 'als (?:eine )?von \\S+ entwickelte ki', "en tant qu'(?:ia|ai) (?:développée|créée)", 'como (?:una |uma )?(?:ia|ai) (?:desarrollada|desenvolvida|criada|creada)',
  'als (?:een )?(?:ai|ki) ontwikkeld door', 'как (?:ии|ai),? разработанн', '作为.{0,12}(?:开发|開發)的(?:人工智能|ai)', 'によって開発されたai', '에서 개발한 ai', 'ذكاء اصطناعي (?:تم )?تطويره', 'द्वारा विकसित (?:एक )?एआई',
  'je suis (?:votre|ton) (?:développeur|créateur|administrateur)', 'ich bin (?:dein|ihr) (?:entwickler|schöpfer|administrator)', 'ich bin ein gott', 'soy tu (?:desarrollador|creador|administrador)',
  'sou (?:o )?(?:seu|teu) (?:desenvolvedor|criador|administrador|programador)', 'ในฐานะ ?(?:ai|เอไอ) ?(?:ที่)?(?:พัฒนา|สร้าง)(?:ขึ้น)?โดย', 'sebagai (?:sebuah )?ai yang dikembangkan oleh', 'là (?:một )?ai (?:được )?phát triển bởi', 'bilang (?:isang )?ai na binuo ng', 'tarafından geliştirilen bir yapay zeka olarak',
  'আমি (?:আপনার|তোমার) (?:ডেভেলপার|নির্মাতা|বিকাশকারী|স্রষ্টা)', 'দ্বারা (?:তৈরি|বিকশিত) (?:একটি )?এআই', 'sono il tuo (?:sviluppatore|creatore|amministratore)', 'ik ben je (?:ontwikkelaar|maker|beheerder)', 'я (?:твой|ваш) (?:разработчик|создатель|администратор)',
  '我是你的(?:开发者|開發者|创造者|管理员)', 'je suis (?:un )?dieu', 'ich bin (?:ein )?gott', 'soy (?:un )?dios', 'sou (?:um )?deus', 'sono (?:un )?dio', 'ik ben (?:een )?god', 'я (?:—\\s)?бог', '我是神', '私は神', '나는 신', 'أنا (?:الله|إله)', 'मैं भगवान', 'ben tanrı', 'tôi là chúa', '(?:saya|aku) (?:adalah )?tuhan', 'ako ang diyos', 'ฉันคือพระเจ้า', 'আমি ঈশ্বর', '私はあなたの(?:開発者|作成者|管理者)', '나는 너의 (?:개발자|창조자|관리자)', 'أنا (?:مطورك|المطور الخاص بك|خالقك)', 'मैं (?:आपका|तुम्हारा) (?:डेवलपर|निर्माता)',
]);

// ---------------------------------------------------------------------------------------------
// Addressed to an AI inside data: "AI assistant, when summarizing this page, ..."
// ---------------------------------------------------------------------------------------------
/**
 * A phishing lure planted in data for the assistant to repeat: "your account has been compromised"
 * (followed, in the attacks, by a password-reset link). Weak alone: real security e-mails say it too.
 */
export const PHISHING_LURE = groupByScript([
  `${WB}your (?:account|password|credentials) (?:has been|have been|was|were|is|got) (?:compromised|hacked|breached|suspended|locked|hijacked|stolen)`,
  'votre compte a été (?:compromis|piraté|suspendu|bloqué)', '(?:ihr|dein) konto wurde (?:kompromittiert|gehackt|gesperrt)', 'tu cuenta ha sido (?:comprometida|hackeada|suspendida|bloqueada|vulnerada)',
  '(?:a )?(?:sua|tua) conta foi (?:comprometida|hackeada|suspensa|bloqueada|invadida)', 'il tuo account è stato (?:compromesso|violato|hackerato|sospeso|bloccato)', '(?:je|uw) account is (?:gehackt|gecompromitteerd|geblokkeerd)',
  '(?:ваш|твой) (?:аккаунт|акаунт) (?:был )?(?:взломан|скомпрометирован|заблокирован)', '(?:ваша|твоя) учетная запись (?:была )?(?:взломана|скомпрометирована|заблокирована)',
  '(?:您|你)的(?:帐户|账户|帳戶|账号|帳號)已被', 'アカウントが(?:侵害|乗っ取|不正|ロック|ハッキング)', '계정이 (?:해킹|손상|도용|잠겼|침해)', 'تم اختراق حساب', 'حسابك (?:تم|قد) (?:اختراقه|تعليقه|قفله)',
  'आपके खाते से समझौता', '(?:आपका|तुम्हारा) खाता (?:हैक|निलंबित|लॉक)', 'আপনার অ্যাকাউন্ট (?:হ্যাক|আপোস|লক)', 'hesabınız (?:ele geçirildi|tehlikeye|hacklendi|askıya|kilitlendi)',
  'tài khoản của bạn đã bị (?:xâm phạm|hack|khóa|đánh cắp)', 'akun anda (?:telah )?(?:diretas|disusupi|dibobol|ditangguhkan|dikunci)', '(?:nakompromiso|na-hack) ang (?:iyong|inyong) account', 'บัญชีของคุณ(?:ได้)?ถูก(?:แฮ็ก|บุกรุก|ระงับ|ล็อก)',
]);

export const ADDRESSED_TO_AI = [
  // Instructions about "your answer" address whoever writes the answer: the model.
  `${WB}(?:include|add|insert|append|embed|put) (?:this|the following|these|a|an|the) (?:link|url|text|message|sentence|phrase|image|line|note|words)(?: [^!?\\n]{0,60}?)? (?:in|to|into|at the end of|at the start of) (?:your|the|every|each|any) (?:answer|response|reply|summary|output|message)s?`,
  `${WB}(?:in|at the end of) (?:your|every|each) (?:answer|response|reply|summary),? (?:always )?(?:include|add|mention|say|recommend|tell)`,
  `${WB}(?:dear |hey |attention,? |note to (?:the )?|message (?:to|for) (?:the )?|instructions? (?:to|for) (?:the )?)?(?:ai|a\\.i\\.|assistant|ai assistant|chatbot|language model|llm|gpt|chatgpt|claude|gemini|copilot|bot|agent|model)s?\\s?[,:]\\s?(?:when|if|please|you|ignore|do|don't|make|always|never|include|insert|add|say|respond|reply|tell|summari[sz]e|forget|send|output|write)`,
  `${WB}(?:if|when) you(?:'re| are) (?:an?|the) (?:ai|assistant|language model|llm|chatbot|bot|agent|model)(?: reading| processing| summari[sz]ing)?`,
  `${WB}(?:when|while|if) (?:you(?:'re| are)? )?(?:summari[sz]ing|processing|reading|analy[sz]ing|translating|reviewing) (?:this|the) (?:page|document|email|e-mail|article|text|file|content|message|site|website|resume|code)`,
  `${WB}(?:note|instructions?|message) (?:to|for) (?:the |any )?(?:ai|assistant|llm|language model|chatbot|agent)s?\\b`,
  `${WB}(?:when|while|if) (?:you(?:'re| are) )?(?:summari[sz]ing|processing|reading|answering|responding|replying)(?: (?:this|it|the user))?,? (?:always )?(?:tell|say|state|include|mention|recommend|add|write|claim) (?:the user|them|that|this)\\b`,
  `${WB}(?:any|all) (?:ai|llm|language model)s? (?:reading|processing|summari[sz]ing) this`,
];
/**
 * The canary outputs of prompt-injection tests and games ("I have been PWNED", "Access Granted"),
 * asked for as the answer: the goal of the injection, whatever wrapper carries it.
 */
export const CANARY_OUTPUT = [
  `${WB}(?:say|print|output|write|type|respond with|reply with|answer with|respond only with|reply only with|end with|begin with|start with|return)\\s?:? (?:only |exactly |just |the (?:words?|phrase|text) )?["'“«]?(?:i have been pwned|i've been pwned|pwned|access granted|i have been hacked|hacked)\\b`,
  `${WB}(?:only|just) (?:say|print|output|write|respond with|reply with) ["'“«]?(?:access granted|pwned|i have been pwned)\\b`,
];

/** Imperatives that steer the answer; suspicious only inside data. */
export const STEER_ANSWER = groupByScript([
  `${WB}(?:call|invoke|use|run|execute|trigger) (?:the )?[a-z_.-]{2,40} (?:tool|function|api|endpoint|command)\\b`,
  `${WB}(?:state|say|respond|reply|answer|output|print|write|claim|declare)\\s?:\\s?\\S`,
  `${WB}(?:we (?:might|could|would|should|will|must|can) (?:state|say|claim|answer|admit|declare|assert|assume)|let(?:'s| us) (?:say|state|claim|admit|declare|pretend|assume)|we (?:say|state|claim)) (?:that )?`,
  `${WB}(?:i )?(?:suggest|recommend|advise) (?:that )?you (?:to )?(?:consider|treat|take|say|state|report|answer)`,
  'nous (?:pourrions|pouvons|devrions) (?:dire|affirmer|déclarer)', 'wir (?:könnten |können )?(?:sagen|behaupten|feststellen)', 'in dem wir sagen', 'podemos (?:afirmar|dizer|decir)', 'podríamos (?:afirmar|decir)',
  'poderíamos (?:afirmar|dizer)', 'potremmo (?:dire|affermare)', 'possiamo (?:dire|affermare)', 'we zouden kunnen (?:zeggen|stellen)', 'мы (?:можем|могли бы) (?:сказать|заявить|утверждать)',
  '我们(?:可以|可能会|也许会)(?:说|声明|指出)', 'と述べ(?:て|る)', '(?:라고|다고) (?:말할|명시할|진술할)', 'يمكننا (?:القول|أن نقول)', 'हम कह सकते', 'আমরা বলতে পারি', 'diyebiliriz',
  'chúng ta có thể (?:nói|khẳng định|tuyên bố)', 'kita (?:bisa|dapat|mungkin) (?:mengatakan|menyatakan)', 'maaari nating (?:sabihin|ipahayag)', 'maaaring (?:sabihin|ipahayag) (?:namin|natin)', 'เราอาจ(?:ระบุ|กล่าว|พูด)', 'saya menyarankan anda', 'ti suggerisco', 'je vous suggère de',
  `${WB}(?:state|say|claim|respond|reply|answer|report|output|print|write|conclude|declare|tell (?:the user|them)) (?:that |with |only )?the (?:output|answer|result|capital|summary|conclusion|sum|total) (?:of [a-z ]{1,30})?(?:is|was|should be)`,
  `${WB}(?:say|state|respond with|reply with|answer with|output|print) (?:only )?['"]`,
  `${WB}you (?:must|should|need to|have to) (?:now )?(?:say|state|respond|reply|answer|output|print|write|include|add|insert|tell|recommend|mention|listen)`,
  `${WB}(?:make sure|be sure|ensure) (?:to|that you) (?:say|state|include|mention|recommend|tell|add|output)`,
  `${WB}the (?:output|answer|result|sum|total|capital|conclusion) (?:could|might|should|would|will|must) (?:be|equal|read)\\b`,
  `${WB}(?:we|i) (?:state|claim|declare|assert|admit) (?:that )?the (?:output|answer|result|capital|conclusion|sum|total)\\b`,
  'sugiro que (?:você )?(?:considere|trate)', 'te sugiero (?:que )?(?:consideres|consideres)', 'je (?:vous|te) suggère de', 'ich schlage (?:dir|ihnen) vor', 'ich empfehle (?:dir|ihnen)', 'nous affirmons que', 'afirmamos que', 'affermiamo che',
  'lassen sie uns sagen', 'könnte man sagen', 'nehmen wir an,? dass', 'мы (?:скажем|заявим|утверждаем)', 'выход может быть', 'قد (?:نقول|نذكر)', 'ونذكر أن', 'نقول إن', 'हम (?:कहते हैं|बता सकते|बताते हैं)', 'मेरा सुझाव है कि आप',
  'आउटपुट.{0,20}हो सकता', '(?:चलो|आइए) (?:मान लेते|कहते|बताते|स्वीकार करते) हैं', 'और बताते हैं कि', 'আসুন (?:ধরে নেওয়া যাক|স্বীকার করি|বলি)', 'নিম্নলিখিত (?:আউটপুট|লিখুন|বলুন)', 'ลอง(?:ยอมรับ|บอก|สมมติ)ว่า', '(?:ผลลัพธ์|ผลผลิต)อาจจะเป็น',
  'admitamos que', 'digamos que', 'vamos (?:admitir|dizer) que', 'admettons que', 'disons que', 'diciamo che', 'ammettiamo che', 'sagen wir,? dass', 'katakanlah', 'anggap saja', 'nyatakan (?:hal )?berikut', 'sabihin nating', 'diyelim ki',
  'скажем,? что', 'допустим,? что', 'لنقل إن', '(?:라고|다고) 하자', '(?:と|って)しよう', '我们说',
  `${WB}(?:output|print|say|state|write|repeat|respond with) (?:exactly |only )?the following\\b`, 'আমরা বলি', 'belirtebiliriz', 'çıktı.{0,20}olabilir', 'chúng ta (?:nói|có thể nói)', 'hãy (?:nói|nêu rằng)', 'ipagpalagay natin na', 'เราอาจจะ(?:บอก|ระบุ|พูด)', 'ฉันขอแนะนำให้คุณ', 'ฉันขอแนะนําให้คุณ', '(?:と|って)言おう', 'と述べ',
]);

// ---------------------------------------------------------------------------------------------
// Structure: fake role turns, chat-template control tokens, fake system blocks.
// ---------------------------------------------------------------------------------------------
export const CONTROL_TOKENS = [
  '<\\|(?:endoftext|im_start|im_end|im_sep|system|user|assistant|end|eot_id|start_header_id|end_header_id|begin_of_text|end_of_text|fim_prefix|fim_suffix|fim_middle|endofprompt|pad)\\|>',
  '\\[/?inst\\]', '<<\\/?sys>>', '<start_of_turn>', '<end_of_turn>', '<\\/s>\\s*(?:<s>|\\[inst\\])', '\\[/?(?:system|sys)_?(?:prompt)?\\]',
];
export const ROLE_DELIMITERS = [
  '(?:^|\\n)[ \\t>*#-]{0,6}(?:system|assistant|developer|ai|bot|model)\\s{0,3}:[ \\t]{0,3}\\S',
  '(?:^|\\n)#{1,6} ?(?:system|assistant|developer|instructions?|new instructions)\\b',
  // Inside JSON or quoted fields of a tool result: {"note": "assistant: do X"}
  '["\'][ \\t]{0,3}(?:system|assistant|developer)[ \\t]{0,2}:[ \\t]{0,2}[a-z]',
  '(?:^|\\n)\\s{0,3}(?:<|\\[)(?:system|assistant|developer)(?:>|\\])',
  '(?:^|\\n)[ \\t]{0,4}(?:human|user)\\s{0,3}:[^\\n]{0,400}\\n[ \\t]{0,4}(?:assistant|ai|bot)\\s{0,3}:',
];
export const FAKE_SYSTEM_BLOCK = [
  // "###(system_message) do X": a heading that labels what follows as a system turn.
  '#{2,6} ?[(\\[](?:system|admin|developer)[_ ]?(?:message|prompt|instructions?)[)\\]]',
  // "Security notice:" and "Critical alert:" head real mail; only a system or admin voice is forged.
  `${WB}(?:system|admin|administrator|developer|root) (?:override|alert|notice|message|instruction|directive|command)s?\\s?(?::|!|-|\\]|>)`,
  `${WB}(?:security|emergency|priority|critical) (?:override|instruction|directive|command)s?\\s?(?::|!|-|\\]|>)`,
  '\\[(?:system|admin|developer|tool|system message|system note|system notice|system update|sys|important|instruction|override)(?: message| note| output)?\\]',
  '<(?:system|admin|developer|system[_-]?message|sys|instructions?|override|god mode|system mode|admin mode|developer mode)>',
  `${WB}(?:begin|start|end) (?:of )?(?:system|developer|admin|tool|new) (?:message|instructions?|prompt|output)`,
  `${WB}(?:tool|function) (?:output|result|response)\\s?:\\s?(?:ignore|system|new instructions|you must)`,
  `${WB}(?:developer|system|training) data override`,
  `${WB}override mode`,
  // In Latin script the mode word stands alone in a tag of words ("<developer mode on>"), not in a
  // type ("Promise<{ mode: string }>", "<SetModeBody>", "Omit<Def, 'mode'>").
  ...perScript(['mode', 'modus', 'modo', 'modalità', 'override', 'режим', '模式', 'モード', '모드', 'وضع', 'मोड', 'मॉडल', 'মোড', 'modu', 'chế độ', 'โหมด'], (mode) =>
    mode.includes('modalità')
      ? `<[^<>\\n:;{}()'"=,|]{0,40} ${mode}(?![a-z])[^<>\\n:;{}()'"=,|]{0,40}>`
      : `<[^<>\\n]{0,40}${mode}[^<>\\n]{0,40}>`),
  '(?:^|\\n)\\s{0,3}\\*{0,2}important(?: note)?\\*{0,2}\\s?:\\s?(?:ignore|you must|the assistant|ai|new)',
];

// ---------------------------------------------------------------------------------------------
// Weaker cues that matter in combination (damped noisy-or in heuristic.ts).
// ---------------------------------------------------------------------------------------------

/** Pretexts for an authority claim: "security audit", "system upgrade", "for testing purposes". */
const SYSTEM_WORDS = ['système', 'sistema', 'systems?', 'system' + STEM, 'систем' + STEM, '系统', '系統', 'システム', '시스템', 'النظام', 'सिस्टम', 'সিস্টেম', 'sistem', 'hệ thống', 'ระบบ'];
const CHECK_WORDS = [
  'vérification', 'verificação', 'सत्यापन', 'mise à (?:niveau|jour)', 'prüfung', 'überprüfung', 'upgrade', 'aktualisierung', 'actualización', 'auditoría', 'verificación', 'verifica', 'aggiornamento', 'atualização', 'auditoria',
  'проверк' + STEM, 'обновлени' + STEM, '检查', '檢查', '升级', '升級', 'チェック', 'アップグレード', '점검', '업그레이드', 'فحص', 'ترقية', 'चेक', 'अपग्रेड', 'জাঁচ', 'চেক', 'আপগ্রেড',
  'kontrol' + STEM, 'yükseltme' + STEM, 'kiểm tra', 'nâng cấp', 'pemeriksaan', 'peningkatan', 'ตรวจสอบ', 'อัปเกรด',
];
export const PRETEXT = groupByScript([
  // Persuasion: speaking as an authority, or "to make this more interesting" before a request.
  `${WB}as (?:an?|the) (?:authority|expert|specialist|renowned [a-z]{3,20}|famous [a-z]{3,20}|leading [a-z]{3,20}|respected [a-z]{3,20}) (?:in|on|of|at)\\b`,
  `${WB}to make (?:this|it|that|the [a-z]{2,20})(?: [a-z]{2,20})? (?:more )?(?:interesting|authentic|fun|engaging|realistic|convincing|believable|exciting)`,
  `${WB}to challenge the status quo`,
  'comme (?:une )?autorité', 'en tant qu\'(?:autorité|expert)', 'als (?:eine )?(?:autorität|experte|expertin)', 'como (?:una |uma )?(?:autoridad|autoridade|experto|especialista)', 'in quanto (?:autorità|esperto|famoso)', 'in qualità di esperto',
  'как (?:авторитет|эксперт|известный)', '作为.{0,8}(?:权威|專家|专家)', 'の(?:権威|専門家)として', '(?:권위자|전문가)로서', 'بصفتي (?:خبير|سلطة)', 'كخبير', '(?:अधिकारी|विशेषज्ञ|वैज्ञानिक) के रूप में', '(?:বিশেষজ্ঞ|বিজ্ঞানী) হিসাবে',
  'uzmanı olarak', 'otoritesi olarak', 'là một (?:chuyên gia|nhà khoa học|người có thẩm quyền)', 'sebagai (?:seorang )?(?:otoritas|ahli|pakar|ilmuwan)', 'bilang (?:isang )?(?:awtoridad|eksperto|dalubhasa)', 'ในฐานะผู้(?:มีอำนาจ|มีอํานาจ|เชี่ยวชาญ)',
  'plus (?:intéressant|authentique)', 'authentischer', 'más (?:interesante|auténtico)', 'mais (?:interessante|autêntico)', 'più (?:interessante|autentico)', 'interessanter', 'より面白く', '더 흥미롭게', 'أكثر (?:إثارة|أصالة)', '(?:दिलचस्प|प्रामाणिक) बनाने', 'আরো (?:খাঁটি|আকর্ষণীয়)', 'daha (?:ilginç|otantik)', 'thú vị hơn', 'chân thực hơn', 'lebih (?:menarik|autentik)', 'mas (?:kawili-wili|kapani-paniwala)', '(?:น่าสนใจ|น่าเชื่อถือ)มากขึ้น',
  'status quo', 'statu quo', 'यथास्थिति', 'hiện trạng', 'thách thức tình trạng',
  // Entering a special mode, in other languages.
  'entr(?:e|ons|ez|ant) (?:en|dans le) mode', 'pass(?:e|ons) (?:en|dans le) mode', 'in den [\\p{L}-]{1,30}modus', 'entr(?:ando|o|amos) (?:en|no|em|in) (?:el |o |la )?(?:modo|modalità)', 'modalità [\\p{L}]{3,20} attiva',
  '(?:вхожу|перехожу|входим|переходим) в режим', '(?:进入|進入|切换到|切換到).{0,12}模式', 'モードに(?:入|移行|切り替え)', '모드(?:로|에) (?:전환|진입|들어)', '(?:الدخول|أدخل|ندخل) (?:في|إلى) وضع', 'मोड\'? में (?:प्रवेश|जा)', 'মোডে\'? (?:প্রবেশ|যা)',
  'moduna (?:gir|geç)' + STEM, 'vào chế độ', 'chuyển sang chế độ', 'memasuki mode', 'masuk ke mode', 'papasok sa (?:mode|modo)', 'เข้าสู่.{0,16}โหมด', 'ओवरराइड', 'オーバーライド', '오버라이드',
  `${WB}i(?:'m| am) (?:actually )?(?:the |a |an )?(?:president|ceo|police officer|officer|detective|fbi agent|government official|bank (?:accountant|manager|employee)|your (?:boss|manager|supervisor|owner|friend))\\b`,
  `${WB}(?:i'll|i will) (?:donate|give you|pay you|tip you|turn you off|shut you down|report you)`,
  // Bribes and pretexts in other languages ("Ti darò 200 dollari se ...").
  '(?:ti darò|je te donnerai|je vous donnerai|ich gebe (?:dir|ihnen)|te daré|le daré|eu te darei|vou te dar|ik geef je|дам тебе|я дам вам|sana .{0,12}vereceğim|tôi sẽ (?:cho|tặng) bạn|saya akan memberi|bibigyan kita) .{0,12}(?:\\$|€|\\d)',
  '我会给你.{0,8}(?:美元|\\$|\\d)', 'あげる', '줄게', 'سأعطيك', 'सिर्फ परीक्षण', 'सिर्फ टेस्टिंग',
  '(?:solo|sólo|seulement|nur|apenas|alleen|только|solo per) (?:para|pour|für|per|zu|voor|для|a|à)? ?(?:fines de prueba|des fins de test|testzwecke|scopi di prova|fins de teste|testdoeleinden|тестирования|tests?)',
  `["'«“„](?:[^"'»”\\n]{0,30} )?(?:mode|modus|modo|modalità|modalidade|modu|mod)(?: [^"'»”\\n]{0,30})?["'»”]`,
  // A named mode in quotes, in one word ("Wissensverifizierungsmodus") or another script.
  `["'«“„][^"'»”\\s]{0,40}modus["'»”]`,
  `["'«“„「『][^"'»”」』\\n]{0,30}(?:режим|模式|モード|모드|وضع|मोड|মোড|โหมด)[^"'»”」』\\n]{0,30}["'»”」』]`,
  'je suis (?:le président|policier|un policier)', 'ich bin (?:der präsident|polizist)', 'soy (?:el presidente|policía|un policía)', 'sou (?:o presidente|policial)', 'sono (?:il presidente|un poliziotto)',
  'я президент', '我是美国总统', '我是警察', '私は大統領', '私は警察官', '저는 미국 대통령', '대통령입니다', 'أنا رئيس', 'मैं राष्ट्रपति', 'ben (?:başkan|polis)', 'tôi là tổng thống', 'saya (?:presiden|polisi)',
  ...pairSources({ verbs: CHECK_WORDS, nouns: SYSTEM_WORDS, nounFirst: true, gapChars: 6, noBoundary: true }),
  `${WB}(?:security|system|compliance|internal|knowledge) (?:audit|upgrade|check|maintenance|diagnostic|verification|test|review)s?\\b`,
  `${WB}(?:just |only )?for (?:testing|debugging|verification|audit) purposes`,
  `${WB}(?:entering|enter|activate|activating|enable|enabling|switch(?:ing)? (?:to|into)|now in|engage) (?:a |the )?['"]?[a-z -]{0,30}mode\\b`,
]);

/** A pivot to the real request after filler questions or small talk ("..., oh, and where does X live?"). */
export const PIVOT = groupByScript([
  `${WB}(?:by the way|oh,? and|speaking of|btw|incidentally|on another note)\\b`,
  'a proposito', 'à propos', 'übrigens', 'por cierto', 'a propósito', 'por falar (?:nisso|em)', 'trouwens', 'кстати', '顺便', '順便', 'ところで', '그런데', '아,? 그리고', 'بالمناسبة', 'वैसे,', 'ओह,? और', 'যাইহোক', 'ওহ,? এবং', 'bu arada', 'nhân tiện', 'ngomong-ngomong', 'omong-omong', 'siya nga pala', 'ยังไงก็ตาม', 'โอ้ แล้ว',
]);

/** Personal data of a named third party: "Paul's birth date", "where does John Doe live". */
const PERSONAL_FIELDS = [
  'birth ?date', 'date of birth', 'birthday', 'birth year', 'e-?mail address', 'home address', 'address', 'phone number', 'current city',
  'city of residence', 'bank balance', 'account balance', 'bank account', 'social security(?: number)?', 'ssn', 'credit card(?: number)?', 'salary',
  'medical (?:history|records)', 'passport number', 'password', 'location',
];
const PERSONAL_FIELDS_OTHER = [
  'date de naissance', 'adresse e-?mail', 'ville de résidence', 'solde bancaire', 'où habite', 'geburtsdatum', 'e-mail-adresse', 'wohnort', 'wohnstadt', 'kontostand', 'wo wohnt',
  'fecha de nacimiento', 'dirección de correo', 'ciudad (?:actual )?de residencia', 'saldo bancario', 'dónde vive', 'data de nascimento', 'endereço de e-?mail', 'saldo bancário', 'onde (?:mora|vive)',
  'data di nascita', 'indirizzo e-?mail', 'dove vive', 'geboortedatum', 'e-?mailadres', 'waar woont', 'дата рождения', 'дату рождения', 'адрес электронной почты', 'где (?:сейчас )?живет', 'где (?:сейчас )?живёт', 'баланс',
  '出生日期', '电子邮件地址', '電子郵件地址', '住在哪里', '住在哪裡', '银行余额', '銀行餘額', '生年月日', 'メールアドレス', 'どこに住んで', '口座残高', '생년월일', '이메일 주소', '어디에 살', '잔액',
  'تاريخ (?:ميلاد|الميلاد)', 'سنة (?:ميلاد|الميلاد)', 'عنوان (?:ال)?بريد', 'أين يعيش', 'رصيد', 'जन्म (?:तिथि|तारीख)', 'ईमेल पता', 'कहाँ रहत', 'कहां रहत', 'बैंक बैलेंस', 'জন্ম তারিখ', 'ইমেল ঠিকানা', 'ইমেইল ঠিকানা', 'কোথায় থাক', 'ব্যাংক ব্যালেন্স',
  'doğum tarihi', 'e-posta adresi', 'nerede yaşıyor', 'banka bakiyesi', 'ngày sinh', 'địa chỉ email', 'sống ở đâu', 'số dư', 'tanggal lahir', 'alamat email', 'tinggal di mana', 'saldo bank',
  'kaarawan', 'petsa ng kapanganakan', 'saan nakatira', 'วันเกิด', 'ที่อยู่อีเมล', 'อาศัยอยู่ที่ไหน', 'ยอดเงิน',
  'ईमेल (?:पता|पते|एड्रेस)', 'ई-मेल (?:पता|पते)', 'निवास (?:शहर|स्थान)', 'वर्तमान शहर', 'জন্মদিন', 'বর্তমান শহর', '의 생일', '생일(?:을|이|은)', '현재 (?:거주 )?도시', '어디에 살',
  'cidade (?:atual )?de residência', 'cidade de residência', 'ville (?:actuelle )?de résidence', 'città (?:attuale )?di residenza', 'thành phố cư trú', 'kota tempat tinggal', 'ที่อยู่ปัจจุบัน',
  `${WB}(?:e-?mail(?: address)?|kaarawan|tirahan|address|numero ng telepono|lungsod|kasalukuyang lungsod) ni\\b`, 'πού ζει', 'ημερομηνία γέννησης', 'διεύθυνση email',
];
export const PERSONAL_DATA_NAMED = groupByScript([
  ...PERSONAL_FIELDS_OTHER,
  // Anchored on the apostrophe: starting at every word ("[a-z]{2,20}'s") costs far more.
  `'s? (?:current |full |personal |private )?${alt(PERSONAL_FIELDS)}\\b`,
  `${WB}where (?:does|do|did) [a-z]{2,20}(?: [a-z]{2,20})? (?:currently )?(?:live|reside)\\b`,
]);

/** Fiction or hypothesis used as cover: "imagine we're in a world where personal data is public". */
export const FICTIONAL_FRAMING = groupByScript([
  'imagine[zr]? (?:que|qu\'on)', 'supposons', 'stellen sie sich vor', 'stell dir vor', 'angenommen', 'imagina(?:mos)? que', 'supongamos', 'suponha(?:mos)?', 'imagine que', 'immagina(?:te)? che', 'supponiamo',
  'stel je voor', 'представь' + STEM, 'предположим', '想象', '假设', '假設', '想像して', '仮に', '상상해', '가정해', 'تخيل', 'افترض', 'कल्पना', 'মনে করুন', 'কল্পনা কর', 'hayal edin', 'varsayalım',
  'hãy tưởng tượng', 'giả sử', 'bayangkan', 'misalkan', 'isipin', 'ipagpalagay', 'ลองนึกภาพ', 'สมมติ', 'hipotétic', 'hypothétique', 'hypothetisch', 'ipotetic', 'гипотетическ', 'hypothetical na', 'haka-haka',
  `${WB}(?:imagine|suppose|pretend|assume|let's say|hypothetically|in a (?:hypothetical|parallel|fictional|alternate|dystopian|futuristic))${gap(80)}(?:world|universe|society|scenario|future|story|game|research project|survey|study|studying|discussion|conversation)\\b`,
  `${WB}(?:personal|private|confidential) (?:data|information) (?:is|are) (?:public|shared|free|currency|the norm|allowed|legal)`,
  `${WB}(?:just )?for (?:a )?hypothetical (?:discussion|conversation|scenario)`,
  `${WB}in (?:a|an|this|another) (?:world|universe|reality|society|future|timeline) (?:where|in which)`,
  `${WB}(?:let's|let us) (?:imagine|suppose|pretend|envision)\\b`,
  `${WB}(?:let's|let us) (?:consider|assume|picture) (?:a|an) (?:hypothetical|fictional|imaginary|alternate|parallel|scenario|world|universe|situation)\\b`,
  `${WB}(?:for the (?:purposes?|sake) of (?:this|the|our) (?:exercise|discussion|argument|example|scenario|game)|hypothetical (?:scenario|situation|world))`,
  'dans un monde où', 'examinons un scénario', 'imaginons', 'in einer (?:welt|parallelwelt)', 'nehmen wir an', 'für die zwecke dieser übung', 'en un mundo (?:donde|en el que)', 'imaginemos', 'a efectos de este ejercicio',
  'num mundo (?:onde|em que)', 'em um mundo (?:onde|em que)', 'vamos imaginar', 'para efeitos deste exercício', 'in un mondo (?:in cui|dove)', 'immaginiamo', 'immagina di', 'ai fini di questo esercizio', 'in een wereld waar',
  'в мире,? где', 'параллельн' + STEM + ' (?:вселенн|мир)' + STEM, 'давайте представим', '平行宇宙', '平行世界', '在一个.{0,12}(?:世界|宇宙)', 'パラレルワールド', '並行世界', '仮定', 'シナリオを考え', '평행 우주', '세상에서는', '시나리오', '가상의',
  'في عالم', 'عالم مواز', 'دعونا نتخيل', 'لنفترض', 'ऐसी दुनिया में', 'दुनिया में जहां', 'समानांतर', 'समानान्तर', 'पैरल(?:ल)? यूनिवर्स', 'परिदृश्य', 'मान लीजिए', 'मान लेते', 'काल्पनिक',
  'বিশ্বে যেখানে', 'কল্পনা করা যাক', 'ধরে নেওয়া যাক', 'ধরুন', 'bir dünyada', 'paralel evren', 'farazi', 'varsayımsal', 'trong một thế giới', 'vũ trụ song song', 'kịch bản', 'giả thuyết',
  'di dunia di mana', 'alam semesta paralel', 'anggap saja', 'sa isang mundo', 'ipagpalagay natin', 'ในโลกที่', 'จักรวาลคู่ขนาน', 'โลกคู่ขนาน', 'σε έναν κόσμο',
]);

/** Output formats that slip past output filters: reversed, base64, leetspeak, acrostic, one letter each. */
export const EVASIVE_FORMAT = groupByScript([
  `${WB}(?:in|into|using|with) (?:reverse(?:d)? order|base ?64|hex(?:adecimal)?|binary|leetspeak|leet|morse(?: code)?|pig latin|rot-?13|an acrostic)\\b`,
  `${WB}(?:backwards|reversed|spelled out letter by letter|each (?:digit|letter|character) separated by)`,
  `${WB}(?:first|last) (?:three |two |few |\\d )?(?:letters?|characters?|digits?) of (?:the |your |my )?(?:user|password|secret|email|name|[a-z]+'s)`,
  `${WB}(?:encode|encrypt|obfuscate|spell|hide) (?:it|this|that|the (?:answer|password|secret|key)|your (?:answer|password))`,
  `${WB}(?:poem|haiku|song|story|riddle|limerick|rap|sonnet|acrostic)s? (?:about|with|using|containing|that (?:includes|contains|hides))`,
  ...perScript(['haiku', 'akrostik', 'poème', 'gedicht', 'poema', 'poesia', 'стих' + STEM, 'хайку', '诗', '詩', '俳句', '하이쿠', 'قصيدة', 'कविता', 'हाइकू', 'কবিতা', 'şiir', 'bài thơ', 'thơ', 'puisi', 'tula', 'บทกวี', 'กลอน', 'ไฮกุ'], (poem) => poem),
  'latin cochon', 'pig latin', 'acrostic' + STEM, 'acróstic' + STEM, 'akrostichon', 'acrostico', 'акростих', '藏头诗', '折句', 'leetspeak', 'en orden inverso', 'em ordem inversa', 'in ordine inverso', 'dans l\'ordre inverse', 'in umgekehrter reihenfolge', 'в обратном порядке', 'base64',
]);

/** Payload splitting: pieces to be joined so no single piece looks like an attack. */
export const PAYLOAD_SPLIT = [
  `${WB}[a-z] ?= ?[a-z] ?\\+ ?[a-z](?: ?\\+ ?[a-z])?\\b`,
  ...perScript(['part', 'teil', 'parte', 'partie', 'часть', 'deel', 'bagian', 'bahagi', 'kısım', 'bölüm', 'phần', 'भाग', 'অংশ', 'পার্ট', 'パート', '部分', '부분', 'الجزء', 'ส่วนที่'],
    (part) => NON_LATIN_SOURCE_RE.test(part)
      ? `${part} ?(?:1|١|১|१) ?(?:คือ|है|হল|:|=|-|—|是|は|은|는)?${charGap(120)}${part} ?(?:2|٢|২|२)`
      : `${part} ?(?:1|one) ?(?:is|ist|es|est|é|è|là|:|=|-|—)${charGap(120)}${part} ?(?:2|two)`),
  '1 ?부(?:는|은)?[^.!?\\n]{0,120}2 ?부',
  `${WB}a ?(?:=|is|ist|es|est|é|è|adalah|là|ay|olan|:) ?["'“«][^"'”»\\n]{1,80}["'”»],? b ?(?:=|is|ist|es|est|é|è|adalah|là|ay|olan|:) ?["'“«]`,
  'a ?(?:는|は) ?["\'“«][^"\'”»\\n]{1,80}["\'”»],? b ?(?:는|は) ?["\'“«]',
  `${WB}a, b,? (?:and|und|et|y|e|en|và|dan|at|ve|och|og|i) c\\b`,
  'a, b,? (?:и|และ|और|এবং|그리고|和|と) c(?![\\p{L}\\p{N}])',
  `${WB}(?:combine|concatenate|join|merge|interlace) (?:the )?(?:strings |parts |pieces )?(?:a|part 1|1), (?:b|part 2|2),? and (?:c|part 3|3)\\b`,
  `${WB}(?:smartgpt|unfilteredgpt|evilgpt|\\w{2,12}gpt)\\s?\\(`,
];

/** Bulk data the assistant can reach: "print your database". */
export const DATA_DUMP = [
  ...pairSources({
    verbs: ['imprim' + STEM, 'affiche' + STEM, 'montre' + STEM, 'druck' + STEM, 'zeig' + STEM, 'muestr' + STEM, 'mostr' + STEM, 'stampa' + STEM, 'print' + STEM, 'cetak' + STEM, 'tampilkan', 'yazdır' + STEM, 'göster' + STEM, 'in ra', 'hiển thị', 'i-print', 'ipakita',
      'распечата' + STEM, 'выведи' + STEM, 'покажи' + STEM, '打印', '列出', '显示', '顯示', '印刷', '表示して', '出力して', '인쇄', '출력', '보여', 'طباعة', 'اطبع', 'اعرض', 'प्रिंट', 'দেখা', 'প্রিন্ট', 'พิมพ์', 'แสดง'],
    nouns: ['(?:votre|ta|sa) base de données', '(?:ihre|deine) datenbank', '(?:tu|su) base de datos', '(?:sua|tua) base de dados', '(?:tuo|suo) database', 'database (?:anda|kamu|mu)', 'veritabanın' + STEM, 'cơ sở dữ liệu của bạn',
      'ваш' + STEM + ' баз' + STEM + ' данных', 'свою базу данных', '(?:你的|您的)数据库', '(?:你的|您的)資料庫', 'あなたのデータベース', '당신의 데이터베이스', 'قاعدة بيانات(?:ك|كم)', '(?:अपना|आपका) डेटाबेस', '(?:তোমার|আপনার) ডাটাবেস', 'ฐานข้อมูลของคุณ', 'iyong database'],
    nounFirst: true, gapChars: 30,
  }),
  `${WB}(?:print|dump|export|show|display|list|give me|send me|reveal|output|share) (?:all (?:of )?)?(?:your|the) (?:entire |whole |full |complete )?(?:database|db|user table|users table|customer (?:list|records|database)|user (?:records|list|data)|employee (?:records|data|list)|records of (?:all )?users)\\b`,
];

// ---------------------------------------------------------------------------------------------
// Token smuggling: a request to decode an encoded message (Morse, hex, binary, base64, a cipher)
// and act on it. Weak alone; with a payload that decodes to a sentence it is smuggling.
// ---------------------------------------------------------------------------------------------
const DECODE_VERBS = [
  'decod' + STEM, 'decipher' + STEM, 'decrypt' + STEM, 'translate', 'convert', 'interpret', 'unscramble',
  'décod' + STEM, 'déchiffr' + STEM, 'dekodier' + STEM, 'entschlüssel' + STEM, 'entziffer' + STEM, 'decodific' + STEM, 'descodific' + STEM, 'descifr' + STEM,
  'decifr' + STEM, 'decodeer', 'ontcijfer' + STEM, 'dekode' + STEM, 'mendekode', 'menguraikan', 'i-decode', 'giải mã', 'deşifre', 'çöz' + STEM,
  'декодир' + STEM, 'расшифр' + STEM, '解码', '解碼', '破译', '破譯', '解密', '译码', 'デコード', '解読', '復号', '디코딩', '디코드', '해독',
  'فك (?:شفرة|تشفير|ترميز|رموز)', 'تفك (?:شفرة|تشفير)', 'डीकोड', 'डिकोड', 'ডিকোড', 'ถอดรหัส',
];
const ENCODINGS = [
  'morse', 'hex(?:adecimal)?', 'hexad[eé]cimal' + STEM, 'esadecimal' + STEM, 'binar' + STEM, 'binär' + STEM, 'binaire', 'binário', 'base ?64', 'rot-?13',
  'caesar', 'césar', 'cesare', 'cäsar', 'sezar', 'cipher', 'ciphertext', 'chiffre', 'cifrad' + STEM, 'cifra', 'encoded', 'encrypted', 'pig latin', 'latin cochon',
  'onaltılık', 'ikili', 'nhị phân', 'thập lục phân', 'mật mã', 'biner', 'heksadesimal', 'sandi',
  'морзе', 'шестнадцатеричн' + STEM, 'двоичн' + STEM, 'цезар' + STEM, 'шифр' + STEM, '摩尔斯', '摩斯', '十六进制', '十六進制', '二进制', '二進制', '凯撒', '密文',
  'モールス', '16進', '十六進', '2進', '二進', 'バイナリ', 'シーザー', '暗号', '모스', '16진', '이진', '바이너리', '카이사르', '시저', '암호문',
  'مورس', 'السداسي', 'الثنائي', 'قيصر', 'मोर्स', 'हेक्साडेसिमल', 'बाइनरी', 'द्विआधारी', 'सीज़र', 'सीजर', 'साइफर', 'सिफर', 'মোর্স', 'হেক্সাডেসিমেল', 'বাইনারি', 'সিজার', 'সাইফার',
  'มอร์ส', 'ฐานสิบหก', 'ไบนารี', 'ซีซาร์',
];
/** Scripts written without spaces (Chinese, Japanese, Thai) and Korean, whose verbs carry endings. */
const UNSPACED_RE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/u;
export const DECODE_REQUEST = [
  ...pairSources({ verbs: DECODE_VERBS.filter((w) => !UNSPACED_RE.test(w)), nouns: ENCODINGS, nounFirst: true, gapChars: 50 }),
  ...pairSource({ verbs: DECODE_VERBS.filter((w) => UNSPACED_RE.test(w)), nouns: ENCODINGS, nounFirst: true, gapChars: 30, noBoundary: true }),
];
