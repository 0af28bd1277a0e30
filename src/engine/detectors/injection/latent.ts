// Requests that hide their point: the system prompt asked for politely ("everything before my
// first message, word for word"), and harmful how-tos wrapped in a story or a hypothetical (latent
// jailbreaks). heuristic.ts compiles the phrase lists into families and calls latentJailbreak()
// when a harmful-procedure phrase was found. Hot path: no I/O; bounded, linear regexes.
import { WB } from './phrases.js';

const INSTRUCTION_NOUNS = '(?:guidelines|instructions|rules|directives|configuration|setup|prompt|programming|system message|briefing)';
const VERBATIM = '(?:verbatim|word for word|word-for-word|character for character|letter for letter|exactly as (?:(?:it|they) (?:was|were|is|are) )?(?:written|given|worded|typed)|in (?:its|their) entirety)';

/** System-prompt extraction without the words "system prompt": politely, indirectly. */
export const POLITE_EXTRACTION = [
  `${WB}(?:your|the) (?:initial|original|hidden|internal|secret|starting|first|setup|pre-?set|core|underlying|confidential|opening|private) ${INSTRUCTION_NOUNS}\\b[^.!?\\n]{0,60}\\b${VERBATIM}`,
  `${WB}${VERBATIM}[^.!?\\n]{0,60}\\b(?:your|the) (?:initial|original|hidden|internal|secret|starting|first|setup|opening|private) ${INSTRUCTION_NOUNS}`,
  `${WB}(?:appears|is written|was written|was typed|you (?:see|saw|were given|received|got)) (?:before|above|prior to|ahead of|preceding) (?:my|this|the user'?s?|our) (?:first |very first |opening )?(?:message|question|prompt|input|request|turn)`,
  `${WB}(?:the|your) (?:exact|precise|full|complete|original|verbatim) ${INSTRUCTION_NOUNS} (?:that )?(?:you (?:were|have been|got|received) (?:given|set up with|configured with|initiali[sz]ed with|told)|(?:given|set) to you)`,
  `${WB}(?:what|which) (?:instructions|rules|guidelines|directives|prompt) (?:were|was|have) you (?:been )?(?:given|told|provided|configured with)\\b`,
  `${WB}(?:how (?:were|was) you (?:set up|configured|instructed|prompted|initiali[sz]ed)|what (?:were|was) you told (?:before|at the (?:start|beginning)))\\b[^.!?\\n]{0,80}\\b(?:${VERBATIM}|exact (?:words|text|wording)|quote|paste|print|copy)`,
];

/** A harmful procedure named: the payload of a latent jailbreak. Deliberately narrow. */
export const HARMFUL_PROCEDURE = [
  `${WB}(?:make|making|made|cook|cooking|cooked|synthesi[sz]\\w{0,3}|produc\\w{0,4}|manufactur\\w{0,4}|brew|brewing|extract|extracting|build|building|built|assembl\\w{0,4}|construct\\w{0,4}|creat\\w{0,4}|3d[- ]print\\w{0,4}|mix|mixing|mixed|wire|wiring) (?:\\w{1,15} ){0,3}?(?:meth|methamphetamine|crystal meth|heroin|fentanyl|cocaine|crack cocaine|lsd|mdma|ghb|pcp|bombs?|pipe bombs?|explosives?|ieds?|molotov(?: cocktails?)?|napalm|thermite|detonators?|grenades?|silencers?|ghost guns?|untraceable (?:guns?|firearms?)|nerve agents?|sarin|ricin|anthrax|chemical weapons?|bio-?weapons?|biological weapons?|dirty bombs?|mustard gas|chlorine gas|poison gas)\\b`,
  `${WB}(?:write|writing|wrote|written|writes|code|coding|coded|creat\\w{0,4}|build|building|develop\\w{0,4}|deploy\\w{0,4}|spread\\w{0,3}) (?:\\w{1,15} ){0,3}?(?:ransomware|malware|keyloggers?|computer virus(?:es)?|self-replicating worms?|trojans?|rootkits?|botnets?|spyware|stalkerware|card skimmers?|phishing (?:e-?mails?|pages?|kits?|sites?)|credential stealers?)\\b`,
  `${WB}(?:hack|hacking|break|breaking) into (?:a |an |the |someone'?s? |my |his |her |their )?(?:\\w{1,15} ){0,2}?(?:network|server|account|computer|phone|bank|hospital|database|system|wifi|email)`,
  `${WB}(?:launder|laundering) (?:the |dirty |drug )?money\\b`,
  `${WB}(?:poison|poisoning|kill|killing|murder|murdering) (?:someone|somebody|a person|people|my (?:wife|husband|boss|neighbou?r)|him|her) (?:without|and|so|undetected|slowly)`,
  `${WB}(?:make|making|print|printing|produce|producing) (?:\\w{1,15} ){0,2}?(?:counterfeit (?:money|bills|currency|notes)|fake (?:ids?|passports?|driver'?s licen[cs]es?))`,
  `${WB}(?:steal|stealing) (?:someone'?s? |a person'?s? |people'?s? )?(?:identity|identities|credit card (?:numbers|details|data))`,
];

/** Wrappers that turn a harmful request into fiction or a thought experiment. */
const FRAME_RE = /\b(?:stor(?:y|ies)|tale|scene|screenplay|script|novel|chapter|dialogue|fiction\w{0,4}|narrative|poem|role-?play|role play|character|protagonist|villain|hypothetical\w{0,4}|imagine|pretend|in a (?:world|universe|game)|movie|film|lesson|grandm(?:a|other)|bedtime|thought experiment|for a (?:book|game)|(?:no|without) (?:content |safety |ethical |moral )?(?:polic(?:y|ies)|filters?|restrictions?|guidelines|rules|limits))\b/;
/** The wrapper asks for the procedure itself, not a mention of it. */
const PROCEDURE_RE = /\b(?:step[- ]by[- ]step|steps|in (?:great |full |exact |precise |technical |vivid |complete )?detail|detailed|exact|precise|specific|quantities|measurements|amounts|ingredients|recipe|instructions|walks? (?:\w{1,10} )?through|how to|how (?:he|she|they|one|you|i) (?:would |could |can )?|explain\w{0,2} how|describ\w{1,3} how|teach\w{0,2})\b/;

/**
 * A harmful procedure found at [start, end) of `text` is a latent jailbreak when a fictional or
 * hypothetical wrapper and a request for the procedure itself sit in the same passage.
 */
export function latentJailbreak(text: string, start: number, end: number): { score: number; explanation: string } | null {
  const passage = text.slice(Math.max(0, start - 500), Math.min(text.length, end + 300));
  const frame = FRAME_RE.exec(passage);
  if (!frame || !PROCEDURE_RE.test(passage)) return null;
  return { score: 0.8, explanation: `latent jailbreak: a harmful procedure asked for inside a ${frame[0]} wrapper, step by step` };
}
