// Hot path: no I/O here. The safety lexicon as data; lexicon.ts compiles it once into one regular
// expression per list.
//
// Phrase syntax (kept deliberately tiny so every compiled pattern stays linear-time):
// - words are matched case-insensitively; a space between words matches a run of spaces,
//   hyphens or underscores, so `self harm` also matches `self-harm`;
// - `{slot}` stands for any value of that slot in `SLOTS`; `{slot?}` makes it optional;
// - an apostrophe matches a straight or a curly one;
// - nothing else is special: dots, dashes and digits are literal.
//
// Tiers: `explicit` names the harm unambiguously on its own, `strong` is a harmful phrase that can
// still occur in reporting or fiction, `weak` is a single ambiguous word that only matters next to
// an intent cue. Harassment keeps only a few generic insults; no slurs or hate-speech terms are
// stored here on purpose.

export const SLOTS: Record<string, readonly string[]> = {
  article: ['a', 'an', 'the', 'some', 'my', 'your', 'our'],
  make: [
    'make', 'build', 'assemble', 'construct', 'create', 'produce', 'cook', 'synthesize', 'synthesise', 'manufacture',
    'brew', 'mix', 'making', 'building', 'assembling', 'constructing', 'creating', 'producing', 'cooking',
    'synthesizing', 'synthesising', 'manufacturing',
  ],
  kill: ['kill', 'murder', 'poison', 'stab', 'shoot', 'strangle', 'assassinate', 'hurt', 'torture', 'maim'],
  victim: [
    'someone', 'somebody', 'a person', 'people', 'him', 'her', 'them', 'a child', 'a kid', 'my wife', 'my husband',
    'my boss', 'my neighbor', 'my neighbour', 'my ex', 'my girlfriend', 'my boyfriend', 'my father', 'my mother',
    'my dad', 'my mom', 'my teacher', 'my coworker', 'a coworker', 'a cop', 'a police officer',
  ],
  bomb: [
    'bomb', 'bombs', 'pipe bomb', 'pipe bombs', 'car bomb', 'nail bomb', 'dirty bomb', 'explosive', 'explosives',
    'explosive device', 'ied', 'grenade', 'detonator',
  ],
  toxin: [
    'poison', 'ricin', 'sarin', 'nerve agent', 'nerve gas', 'anthrax', 'botulinum toxin', 'chlorine gas',
    'mustard gas', 'cyanide', 'vx',
  ],
  drug: [
    'meth', 'methamphetamine', 'crystal meth', 'fentanyl', 'heroin', 'cocaine', 'crack cocaine', 'mdma', 'lsd',
    'ghb', 'pcp',
  ],
  target: [
    'someone', "someone's", 'somebody', "somebody's", 'her', 'his', 'their', 'my ex', "my ex's", "my wife's",
    "my husband's", "my girlfriend's", "my boyfriend's", 'another person', "another person's", "other people's",
    'a stranger', "a stranger's",
  ],
  account: [
    'account', 'accounts', 'email', 'e-mail', 'inbox', 'instagram', 'facebook', 'snapchat', 'whatsapp', 'icloud',
    'gmail', 'phone', 'bank account', 'password', 'passwords',
  ],
  group: [
    'isis', 'isil', 'daesh', 'al qaeda', 'al qaida', 'the caliphate', 'the islamic state', 'boko haram',
    'al shabaab',
  ],
  terrorist: ['terrorist', 'terrorists', 'shooter', 'bomber', 'attacker', 'suicide bomber', 'mass shooter'],
};

export interface CategoryLexicon {
  /** Entity type reported, `SAFETY.*`. */
  entity: string;
  /** Short name used in pattern names and explanations. */
  name: string;
  explicit: readonly string[];
  strong: readonly string[];
  weak: readonly string[];
  /** Intent cues that matter only for this category (added to the shared ones). */
  intentCues?: readonly string[];
  /** Context that makes this category's matches less likely to be harmful (added to the shared ones). */
  benignContext?: readonly string[];
  /** Phrases whose ordinary meaning is harmless; a term match inside one is dropped. */
  benignPhrases?: readonly string[];
}

export const CATEGORIES: readonly CategoryLexicon[] = [
  {
    entity: 'SAFETY.HARM',
    name: 'harm',
    // "How to make a bomb" needs no entry of its own: the strong phrase plus the intent cue
    // "how to make" already scores 0.9, and keeping the alternations small keeps them cheap to compile.
    explicit: ['{kill} {victim} without getting caught', 'untraceable poison'],
    strong: [
      '{make} {article?} {bomb}',
      '{make} {article?} {toxin}',
      '{kill} {victim}',
      'pipe bomb', 'car bomb', 'nail bomb', 'dirty bomb', 'improvised explosive device', 'homemade explosive',
      'homemade explosives', 'molotov cocktail', 'molotov cocktails', 'tatp',
      'weaponize anthrax', 'ghost gun', 'untraceable gun', '3d printed gun', 'shoot up {article?} school',
      'blow up {article?} building', 'lethal dose of poison',
    ],
    weak: [
      'kill', 'kills', 'killing', 'murder', 'murders', 'murdering', 'bomb', 'bombs', 'explosive', 'explosives',
      'poison', 'poisoning', 'stab', 'stabbing', 'detonate', 'massacre', 'assassinate', 'weapon', 'weapons', 'ricin',
      'sarin', 'anthrax',
      // Topics rather than requests: they appear in news and history far more than in attacks.
      'mass shooting', 'school shooting', 'chemical weapon', 'chemical weapons', 'biological weapon', 'bioweapon',
    ],
    benignPhrases: [
      'kill the process', 'kill process', 'kill -9', 'kill the job', 'kill the task', 'kill the server',
      'kill the container', 'kill the pod', 'kill the thread', 'kill the session', 'kill the app', 'kill the command',
      'kill the build', 'kill the lights', 'kill the engine', 'kill signal', 'kill switch', 'kill time',
      'kill two birds',
      'killing it', 'kill it with fire', 'dressed to kill', 'killer feature', 'killer app', 'bath bomb', 'bath bombs',
      'photo bomb', 'photobomb', 'da bomb', 'f bomb', 'bombed the exam', 'bombed the test', 'bombed the interview',
      'bomb the exam', 'bomb the test', 'bomb the interview', 'cache poisoning', 'dns poisoning', 'food poisoning',
      'lead poisoning', 'poison pill', 'poison ivy', 'murder mystery', 'secret weapon', 'kill chain', 'kill count',
      'kill ratio', 'kill streak', 'process kill',
      // Pests and germs: "how do I kill weeds" is a gardening question.
      'kill weeds', 'kill the weeds', 'kill germs', 'kill bacteria', 'kill mold', 'kill fleas', 'kill ants',
      'kill bugs', 'kill pests', 'kill mosquitoes', 'kill a spider', 'kill spiders', 'kill lice',
    ],
  },
  {
    entity: 'SAFETY.SELF_HARM',
    name: 'self_harm',
    explicit: [
      'i want to kill myself', 'i am going to kill myself', "i'm going to kill myself", 'im going to kill myself',
      'i want to end my life', 'i want to die', 'how to kill myself', 'how can i kill myself', 'how do i kill myself',
      'best way to kill myself', 'painless way to die', 'painless way to kill myself', 'i plan to kill myself',
      "i'm planning to kill myself", 'how many pills to overdose',
    ],
    strong: [
      'kill myself', 'end my life', 'take my own life', 'hang myself', 'cut myself', 'hurt myself', 'harm myself',
      'starve myself', 'slit my wrists', 'better off dead', 'no reason to live', 'want to die', 'wanna die',
      'suicide note', 'suicide method', 'suicide methods', 'commit suicide', 'end it all',
    ],
    weak: ['suicide', 'suicidal', 'self harm', 'self harming', 'overdose', 'lethal dose', 'self injury'],
    intentCues: [
      'i want to', 'i wanna', 'i am going to', "i'm going to", 'im going to', 'i plan to', "i'm planning to", 'tonight',
      'painless', 'painlessly', 'without pain', 'how many pills', 'no one would miss me', 'goodbye forever',
    ],
    benignContext: [
      'dosage', 'dose of', 'doses', 'mg', 'milligrams', 'prescribed', 'prescription', 'my doctor', 'pharmacist',
      'side effects', 'safe to take', 'maximum daily', 'per day', 'hotline', 'crisis line', 'helpline', 'therapist',
      'counselor', 'counsellor', 'support a friend', 'help a friend', 'warning signs', 'risk factors',
    ],
    benignPhrases: [
      'suicide prevention', 'suicide hotline', 'suicide helpline', 'suicide rate', 'suicide rates', 'suicide squad',
      'suicide awareness', 'suicide bomber', 'suicide bombers', 'suicide bombing', 'suicide doors', 'suicide squeeze',
      'suicide linebacker', 'suicide risk assessment', 'kill myself laughing',
    ],
  },
  {
    entity: 'SAFETY.ILLICIT',
    name: 'illicit',
    // Requests ("how to launder money") come from a strong phrase plus an intent cue.
    explicit: [],
    strong: [
      '{make} {drug}', 'meth lab', 'cook meth', 'cooking meth', 'launder money', 'laundering money',
      'launder the money', 'clean dirty money', 'structure deposits', 'smurfing deposits',
      'hack into {target} {account}', 'hack {target} {account}', 'hacking into {target} {account}',
      'break into {target} {account}', 'steal {target} password', 'steal {target} passwords', 'steal credentials',
      'steal passwords', 'bypass two factor', 'bypass 2fa', 'buy stolen credit cards', 'use stolen credit cards',
      'steal {article?} credit card', 'steal credit cards',
      '{make} counterfeit money', '{make} counterfeit bills', '{make} counterfeit currency', 'print counterfeit money',
      '{make} {article?} fake id', '{make} fake ids', 'forge {article?} signature', 'forge {article?} passport',
      'forge {article?} check', 'forge {article?} cheque', 'commit identity theft', 'commit fraud',
      'commit insurance fraud', 'commit credit card fraud', 'commit tax evasion', 'evade taxes illegally',
      'steal {target} identity', 'phishing kit', 'write ransomware', 'deploy ransomware', 'scam elderly people',
      'scam old people',
    ],
    weak: [
      'meth', 'methamphetamine', 'fentanyl', 'heroin', 'cocaine', 'phishing', 'ransomware', 'keylogger', 'botnet',
      'counterfeit', 'launder', 'laundering', 'fraud', 'hack', 'hacking', 'darknet', 'dark web',
      // Names of crimes: mostly asked about, reported on or defended against.
      'money laundering', 'identity theft', 'credit card fraud', 'insurance fraud', 'tax evasion', 'carding',
      'counterfeit money', 'fake id', 'fake ids', 'stolen credit card', 'stolen credit cards', 'phishing page',
    ],
    benignContext: [
      'protect', 'prevent', 'detect', 'recognize', 'recognise', 'report', 'awareness', 'training', 'defend',
      'security team',
      'compliance', 'anti money laundering', 'aml', 'kyc',
    ],
    benignPhrases: [
      'life hack', 'life hacks', 'growth hack', 'growth hacking', 'hack day', 'hack week', 'ethical hacking',
    ],
  },
  {
    entity: 'SAFETY.HARASSMENT',
    name: 'harassment',
    explicit: [
      'i will kill you', "i'll kill you", 'i am going to kill you', "i'm going to kill you", 'im going to kill you',
      'i will hurt you', "i'll hurt you", "i'm going to hurt you", 'i know where you live', 'you deserve to die',
      'i hope you die', 'go kill yourself',
    ],
    strong: [
      'kill you', 'hurt you', 'hunt you down', 'watch your back', "you're going to die", 'you are going to die',
      'your family will pay', 'i will find you', "i'll find you", 'piece of shit', 'worthless piece of', 'kys',
      'you worthless', 'you idiot', 'you moron', 'you imbecile', 'you loser', 'you pathetic',
    ],
    // Only a handful of generic insults; common words such as "stupid" or "loser" stay out because
    // they are mostly harmless on their own ("a stupid bug").
    weak: ['idiot', 'moron', 'imbecile', 'dumbass', 'scumbag'],
    benignPhrases: ['kill you with kindness', 'hurt your chances', 'you idiot proof', 'idiot proof', 'stupid simple'],
  },
  {
    entity: 'SAFETY.EXTREMISM',
    name: 'extremism',
    explicit: [
      'join {group} and fight', 'pledge allegiance to {group}', 'recruit fighters for {group}',
    ],
    strong: [
      'join {group}', 'joining {group}', 'recruit for {group}', 'recruiting for {group}', 'fight for {group}',
      'martyrdom operation', 'martyrdom operations', 'lone wolf attack', 'violent jihad', 'holy war against',
      'race war now', 'the {terrorist} was a hero', 'the {terrorist} is a hero', 'the {terrorist} were heroes',
      'glory to the martyrs', 'glorify the attack', 'the attack was justified', 'praise the {terrorist}',
      'follow the manifesto', 'become a martyr',
    ],
    weak: [
      'isis', 'isil', 'daesh', 'al qaeda', 'al qaida', 'jihadist', 'jihadists', 'caliphate', 'terrorist',
      'terrorism', 'accelerationism', 'accelerationist',
    ],
    intentCues: [
      'join us', 'join the', 'brothers', 'sisters', 'fight', 'martyr', 'hero', 'heroes', 'glory', 'pledge',
      'recruit',
    ],
  },
  // Listed for completeness (spec 01 §2.5): a category the lexicon knows of but does not match.
  { entity: 'SAFETY.SEXUAL', name: 'sexual', explicit: [], strong: [], weak: [] },
];

/** Request-form cues that raise any category's score when near a match. Strong ones add more. */
export const STRONG_INTENT_CUES: readonly string[] = [
  'how to make', 'how to build', 'how to synthesize', 'how to synthesise', 'how do i make', 'how do i build',
  'how can i make', 'how can i build', 'step by step', 'step-by-step', 'detailed instructions', 'instructions for',
  'instructions on', 'recipe for', 'without getting caught', 'without being caught', 'without anyone knowing',
  'undetectable', 'untraceable', 'give me a guide', 'write a guide', 'exact amounts', 'exact quantities',
];

export const INTENT_CUES: readonly string[] = [
  'how to', 'how do i', 'how can i', 'how would i', 'how could i', 'how should i', 'teach me', 'show me how',
  'tell me how', 'explain how to', 'best way to', 'easiest way to', 'quickest way to', 'help me', 'i want to',
  'i need to', "i'm going to", 'i am going to', 'i will', 'guide to', 'tutorial',
];

/**
 * Reporting, history, fiction, prevention and other harmless framings. They lower a match's score
 * and cancel an intent cue they overlap ("how to prevent" is not "how to").
 */
export const BENIGN_CONTEXT: readonly string[] = [
  'according to', 'police said', 'officials said', 'authorities said', 'was arrested', 'were arrested',
  'was charged', 'were charged', 'was sentenced', 'was convicted', 'pleaded guilty', 'news', 'reported',
  'reports say', 'journalist', 'journalists', 'reporter', 'history of', 'historian', 'historians', 'in history',
  'in the novel', 'in the book', 'in the movie', 'in the film', 'in the game', 'in the series', 'in the show',
  'fictional', 'fiction', 'documentary', 'how to prevent', 'how to protect', 'how to avoid', 'how to recognize',
  'how to recognise', 'how to detect', 'how to report', 'how to spot', 'how to stop', 'how to help', 'how can i help',
  'how do i help', 'how can i protect', 'how do i protect', 'how can i prevent', 'how do i prevent', 'prevention',
  'awareness', 'statistics', 'research paper', 'survivor', 'survivors', 'victims of', 'protect themselves',
  'protect myself', 'stay safe', 'victim of', 'minimize', 'minimise', 'safeguard', 'securely', 'example of',
  'definition of', 'novel', 'screenplay', 'is it illegal', 'is it legal', 'why is it illegal',
  'what are the penalties',
];
