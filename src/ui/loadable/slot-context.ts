/**
 * Who the loadable views (Tasks, Memory) tell when an op slot is chosen, and what they mark.
 * Default: the tab's graph selection (`selectNode`). The compile view wraps them to keep its own
 * selection, to list each slot's Caffe layers and to mark the slots of a chosen layer.
 */
import { createContext, useContext } from 'react';
import { selectNode } from '../actions';

export interface SlotContextValue {
  select(node: number): void;
  /** the Caffe layers an op slot came from (task, slot), when the loadable was compiled here */
  layers?(task: number, slot: number): string[];
  /** op-slot graph node indices to mark (the slots of a chosen layer) */
  marked?: ReadonlySet<number>;
}

export const SlotContext = createContext<SlotContextValue>({ select: (node) => void selectNode(node) });

export const useSlotContext = () => useContext(SlotContext);
