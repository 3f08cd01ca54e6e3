// Custom search attributes a sweep sets so runs can be listed by model, hardware and goal
// (`temporal workflow list --query "SpicaModel='…'"`). Shared by workflows (upsert) and the CLI
// (registration); must stay free of Node APIs because it is bundled into workflow code.
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const SPICA_MODEL = defineSearchAttributeKey('SpicaModel', SearchAttributeType.KEYWORD);
export const SPICA_HARDWARE = defineSearchAttributeKey('SpicaHardware', SearchAttributeType.KEYWORD);
export const SPICA_GOAL = defineSearchAttributeKey('SpicaGoal', SearchAttributeType.KEYWORD);

/** Name → kind, in the spelling `temporal server start-dev --search-attribute` and temporal-dev.yaml use. */
export const SWEEP_SEARCH_ATTRIBUTES = {
  SpicaModel: 'Keyword',
  SpicaHardware: 'Keyword',
  SpicaGoal: 'Keyword',
} as const;
