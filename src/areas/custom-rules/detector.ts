// The `custom.rules` detector: runs the operators' enabled custom rules over a checked text and
// reports `CUSTOM.<KEY>` detections, which the `custom-rules` policy pack turns into verdicts. The
// rule table is swapped whole by setRules() (compiled there, once per change); detect() only reads
// it. Hot path: no I/O, no compilation, linear in the text.
import { SURFACES, type DetectContext, type Detection, type Detector, type Surface } from '../../engine/detectors/types.js';
import { callerMessage, compileCustomRule, type CompiledCustomRule, type CustomRuleDefinition } from './matcher.js';

export const CUSTOM_RULES_DETECTOR_KEY = 'custom.rules';

interface Table {
  bySurface: ReadonlyMap<Surface, readonly CompiledCustomRule[]>;
  /** Surfaces with at least one enabled rule: the detector serves only these. */
  surfaces: readonly Surface[];
  entityTypes: readonly string[];
}

const EMPTY: Table = { bySurface: new Map(), surfaces: [], entityTypes: [] };

/**
 * One instance per gateway (it holds that gateway's rules); the custom rules service feeds it.
 * @example
 * const detector = new CustomRulesDetector();
 * detector.setRules([{ ...definition, key: 'falcon', kind: 'keyword', entries: ['project falcon'] }]);
 * detector.detect('about Project Falcon', context); // [{ entity: 'CUSTOM.FALCON', start: 6, end: 20, ... }]
 */
export class CustomRulesDetector implements Detector {
  readonly key = CUSTOM_RULES_DETECTOR_KEY;
  /** Pattern rules with re2js cost more than the native pattern detectors. */
  readonly costRank = 20;
  /** Require and sequence rules need the whole text: a piece may lack what the whole has. */
  readonly wholeText = true;
  private table: Table = EMPTY;

  /**
   * Only the surfaces some enabled rule checks, so that without rules the detector never runs (and
   * adds nothing to a decision's explanation). The detector registry caches its per-surface lists:
   * after setRules() it must be told (see src/app.ts, where it is wired), as it must for the detection cache.
   */
  get surfaces(): readonly Surface[] {
    return this.table.surfaces;
  }

  get entityTypes(): readonly string[] {
    return this.table.entityTypes;
  }

  available() {
    return { available: true };
  }

  /**
   * Replaces the rule table with the enabled rules among `definitions`. A rule that no longer
   * compiles (it was checked when saved) is left out and named in `skipped`.
   */
  setRules(definitions: readonly CustomRuleDefinition[]): { skipped: Array<{ key: string; reason: string }> } {
    const skipped: Array<{ key: string; reason: string }> = [];
    const bySurface = new Map<Surface, CompiledCustomRule[]>(SURFACES.map((surface) => [surface, []]));
    const entityTypes: string[] = [];
    for (const definition of definitions) {
      if (!definition.enabled) continue;
      let compiled: CompiledCustomRule;
      try {
        compiled = compileCustomRule(definition);
      } catch (error) {
        skipped.push({ key: definition.key, reason: error instanceof Error ? error.message : String(error) });
        continue;
      }
      entityTypes.push(compiled.entity);
      for (const surface of definition.surfaces.length === 0 ? SURFACES : definition.surfaces) bySurface.get(surface)?.push(compiled);
    }
    this.table = { bySurface, surfaces: SURFACES.filter((surface) => (bySurface.get(surface)?.length ?? 0) > 0), entityTypes };
    return { skipped };
  }

  detect(text: string, context: DetectContext): Detection[] {
    const rules = this.table.bySurface.get(context.surface);
    if (rules === undefined || rules.length === 0) return [];
    const detections: Detection[] = [];
    for (const rule of rules) {
      if (context.deadline !== undefined && Date.now() > context.deadline) break;
      const outcome = rule.run(text, { deadline: context.deadline });
      if (!outcome.fires) continue;
      const { definition } = rule;
      const pattern = definition.key;
      if (definition.polarity === 'require') {
        detections.push({
          entity: rule.entity,
          score: 1,
          start: 0,
          end: 0,
          pattern,
          explanation: `custom rule "${definition.name}" (${definition.key}): the required ${definition.kind === 'sequence' ? 'sequence' : definition.kind === 'regex' ? 'pattern' : 'text'} is missing. ${callerMessage(definition)}`,
        });
        continue;
      }
      for (const span of outcome.spans) {
        detections.push({
          entity: rule.entity,
          score: 1,
          start: span.start,
          end: span.end,
          pattern,
          explanation: `custom rule "${definition.name}" (${definition.key}): ${definition.kind} ${JSON.stringify(span.entry)} matched${span.end === span.start ? ' (where could not be located in time)' : ''}`,
        });
      }
    }
    return detections;
  }
}
