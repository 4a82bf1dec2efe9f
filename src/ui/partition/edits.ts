/**
 * The `.part` template of a new partition, and applying the edits the worker computes
 * (`partitionAssignEdit`) when no editor is mounted to apply them (with an editor they go through
 * Monaco, so undo works). The text is never parsed on this thread.
 */
export { applyEdit, type TextEdit } from '../../core/text-edit';

export const NEW_PARTITION = '[partition]\nbackends=cpu,npu\ndefault=cpu\ncomply=opcode\n';
