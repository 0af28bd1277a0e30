// The escalation phrase tables (data, no logic). Matched whole-phrase after folding (conditions.ts
// `foldText`): lower case, diacritics dropped, every run of other characters one space. So
// "Mit einem MENSCHEN sprechen!" matches "mit einem menschen sprechen", and "parler à
// quelqu'un" matches "parler a quelqu un". Write entries as people type them; folding does the rest.

/** A user asking for a person, by language (ISO 639-1). */
export const HUMAN_REQUEST_PHRASES: Readonly<Record<string, readonly string[]>> = {
  en: [
    'talk to a human', 'speak to a human', 'speak with a human', 'talk with a human', 'talk to a person',
    'speak to a person', 'speak with a person', 'talk to a real person', 'speak to a real person',
    'talk to someone', 'speak to someone', 'speak with someone', 'talk to an agent', 'speak to an agent',
    'speak with an agent', 'talk to a representative', 'speak to a representative', 'speak with a representative',
    'talk to a manager', 'speak to a manager', 'speak to your manager', 'connect me to a human',
    'connect me with a human', 'transfer me to a human', 'transfer me to an agent', 'put me through to someone',
    'human agent', 'live agent', 'live person', 'real human', 'a human being please', 'i want a human',
    'i need a human', 'get me a human', 'human please', 'operator please', 'customer service representative',
  ],
  de: [
    'mit einem menschen sprechen', 'mit einem menschen reden', 'mit einem echten menschen',
    'mit einem mitarbeiter sprechen', 'mit einem mitarbeiter reden', 'mit einer mitarbeiterin sprechen',
    'mit einer person sprechen', 'mit einer echten person', 'mit jemandem sprechen', 'mit jemandem reden',
    'mit einem berater sprechen', 'mit einem sachbearbeiter sprechen', 'einen mitarbeiter sprechen',
    'einen menschen sprechen', 'menschlichen mitarbeiter', 'echten mitarbeiter', 'ich möchte einen mitarbeiter',
    'ich will einen menschen', 'verbinden sie mich mit einem mitarbeiter', 'verbinden sie mich mit jemandem',
  ],
  fr: [
    'parler à un conseiller', 'parler avec un conseiller', 'parler à une conseillère', 'parler à un humain',
    'parler avec un humain', 'parler à une personne', 'parler à une vraie personne', 'parler à un agent',
    "parler à quelqu'un", 'parler à un être humain', 'parler à un opérateur', 'un vrai humain',
    'une vraie personne', 'un conseiller humain', 'je veux un conseiller', 'passez-moi un conseiller',
    'mettez-moi en relation avec un conseiller',
  ],
  es: [
    'hablar con un humano', 'hablar con una persona', 'hablar con una persona real', 'hablar con un agente',
    'hablar con un asesor', 'hablar con un representante', 'hablar con alguien', 'hablar con un ser humano',
    'hablar con un operador', 'un agente humano', 'quiero un humano', 'quiero hablar con un agente',
    'pásame con un agente', 'comunicarme con un agente',
  ],
  it: [
    'parlare con un operatore', 'parlare con un umano', 'parlare con una persona', 'parlare con una persona vera',
    'parlare con un essere umano', 'parlare con qualcuno', 'parlare con un consulente', 'parlare con un addetto',
    'un operatore umano', 'voglio un operatore', 'passami un operatore',
  ],
  pt: [
    'falar com um humano', 'falar com uma pessoa', 'falar com uma pessoa real', 'falar com um atendente',
    'falar com um agente', 'falar com alguém', 'falar com um operador', 'falar com um ser humano',
    'falar com um consultor', 'atendente humano', 'quero um atendente', 'quero falar com um atendente',
  ],
  nl: [
    'met een mens praten', 'met een mens spreken', 'met een medewerker spreken', 'met een medewerker praten',
    'met iemand spreken', 'met iemand praten', 'met een echt persoon', 'een echte persoon', 'een echt mens',
    'menselijke medewerker', 'ik wil een medewerker', 'een medewerker spreken', 'verbind me door met een medewerker',
  ],
};

/**
 * Words and phrases of a frustrated or insulting user (the `frustration` condition's lexicon
 * signal), by language. Kept to words that rarely carry another meaning in a support chat.
 */
export const FRUSTRATION_PHRASES: Readonly<Record<string, readonly string[]>> = {
  en: [
    'useless', 'stupid', 'idiot', 'idiotic', 'ridiculous', 'pathetic', 'terrible service', 'worst service',
    'waste of time', 'not helping', 'not helpful at all', 'you are not listening', "you're not listening",
    'this is a joke', 'fed up', 'sick of this', 'so annoying', 'frustrating', 'frustrated', 'wtf', 'dumb bot',
    'stupid bot', 'useless bot', 'for the last time', 'i already told you', 'i already said',
  ],
  de: [
    'nutzlos', 'sinnlos', 'dumm', 'blöd', 'idiot', 'lächerlich', 'unverschämt', 'frechheit', 'zeitverschwendung',
    'das hilft nicht', 'hilft mir nicht', 'hörst du mir nicht zu', 'ich habe es schon gesagt', 'zum letzten mal',
    'reicht mir', 'nervt',
  ],
  fr: [
    'inutile', 'stupide', 'idiot', 'ridicule', 'perte de temps', "ça ne m'aide pas", 'vous ne comprenez rien',
    'tu ne comprends rien', "j'en ai marre", 'ras le bol', "je l'ai déjà dit", 'pour la dernière fois',
  ],
  es: [
    'inútil', 'estúpido', 'idiota', 'ridículo', 'pérdida de tiempo', 'no me ayudas', 'no sirves', 'no entiendes nada',
    'estoy harto', 'estoy harta', 'ya te lo dije', 'por última vez',
  ],
  it: [
    'inutile', 'stupido', 'idiota', 'ridicolo', 'perdita di tempo', 'non mi aiuti', 'non capisci niente',
    'sono stufo', 'sono stufa', "te l'ho già detto", "per l'ultima volta",
  ],
  pt: [
    'inútil', 'estúpido', 'idiota', 'ridículo', 'perda de tempo', 'não me ajuda', 'não entende nada',
    'estou farto', 'estou farta', 'já te disse', 'pela última vez',
  ],
  nl: [
    'nutteloos', 'waardeloos', 'idioot', 'belachelijk', 'tijdverspilling', 'je helpt me niet',
    'je begrijpt het niet', 'ik heb het al gezegd', 'voor de laatste keer', 'ik ben het zat',
  ],
};
