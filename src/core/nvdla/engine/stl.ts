/**
 * Two pieces of the C++ standard library whose exact behaviour leaks into nvdla_compiler's output,
 * reproduced step for step (libstdc++ as shipped with GCC):
 *
 * - `stdSort`: `std::sort` (introsort: median-of-three quicksort down to 16 elements, heap sort
 *   past the depth limit, then insertion sort). It is not stable, and the compiler sorts graph
 *   elements whose scores tie, so tensor and buffer numbering depend on its exact moves.
 * - `RbTreeOrder`: the in-order sequence of a `std::map` (red-black tree) after a series of
 *   insertions. The engine graph's element map uses a comparator that is not a strict weak order
 *   (a node and an edge are each "less" than the other), so where an element lands depends on
 *   the tree's shape, rebalancing included.
 *
 * Written by hand: no library reproduces another library's unspecified behaviour.
 */

export type Less<T> = (a: T, b: T) => boolean;

function insertionSort<T>(a: T[], first: number, last: number, less: Less<T>): void {
  if (first === last) return;
  for (let i = first + 1; i < last; i++) {
    const val = a[i]!;
    if (less(val, a[first]!)) {
      for (let k = i; k > first; k--) a[k] = a[k - 1]!;
      a[first] = val;
    } else unguardedLinearInsert(a, i, less);
  }
}

function unguardedLinearInsert<T>(a: T[], last: number, less: Less<T>): void {
  const val = a[last]!;
  let next = last - 1;
  while (less(val, a[next]!)) {
    a[last] = a[next]!;
    last = next;
    next--;
  }
  a[last] = val;
}

function swap<T>(a: T[], i: number, j: number): void {
  const t = a[i]!;
  a[i] = a[j]!;
  a[j] = t;
}

function moveMedianToFirst<T>(a: T[], result: number, x: number, y: number, z: number, less: Less<T>): void {
  if (less(a[x]!, a[y]!)) {
    if (less(a[y]!, a[z]!)) swap(a, result, y);
    else if (less(a[x]!, a[z]!)) swap(a, result, z);
    else swap(a, result, x);
  } else if (less(a[x]!, a[z]!)) swap(a, result, x);
  else if (less(a[y]!, a[z]!)) swap(a, result, z);
  else swap(a, result, y);
}

function unguardedPartition<T>(a: T[], first: number, last: number, pivot: number, less: Less<T>): number {
  for (;;) {
    while (less(a[first]!, a[pivot]!)) first++;
    last--;
    while (less(a[pivot]!, a[last]!)) last--;
    if (!(first < last)) return first;
    swap(a, first, last);
    first++;
  }
}

function adjustHeap<T>(a: T[], first: number, holeIndex: number, len: number, value: T, less: Less<T>): void {
  const topIndex = holeIndex;
  let secondChild = holeIndex;
  while (secondChild < Math.floor((len - 1) / 2)) {
    secondChild = 2 * (secondChild + 1);
    if (less(a[first + secondChild]!, a[first + secondChild - 1]!)) secondChild--;
    a[first + holeIndex] = a[first + secondChild]!;
    holeIndex = secondChild;
  }
  if ((len & 1) === 0 && secondChild === Math.floor((len - 2) / 2)) {
    secondChild = 2 * (secondChild + 1);
    a[first + holeIndex] = a[first + secondChild - 1]!;
    holeIndex = secondChild - 1;
  }
  // __push_heap
  let parent = Math.floor((holeIndex - 1) / 2);
  while (holeIndex > topIndex && less(a[first + parent]!, value)) {
    a[first + holeIndex] = a[first + parent]!;
    holeIndex = parent;
    parent = Math.floor((holeIndex - 1) / 2);
  }
  a[first + holeIndex] = value;
}

function makeHeap<T>(a: T[], first: number, last: number, less: Less<T>): void {
  const len = last - first;
  if (len < 2) return;
  let parent = Math.floor((len - 2) / 2);
  for (;;) {
    adjustHeap(a, first, parent, len, a[first + parent]!, less);
    if (parent === 0) return;
    parent--;
  }
}

function heapSelectAndSort<T>(a: T[], first: number, middle: number, last: number, less: Less<T>): void {
  makeHeap(a, first, middle, less);
  for (let i = middle; i < last; i++) {
    if (less(a[i]!, a[first]!)) {
      // __pop_heap(first, middle, i)
      const value = a[i]!;
      a[i] = a[first]!;
      adjustHeap(a, first, 0, middle - first, value, less);
    }
  }
  // __sort_heap(first, middle)
  let end = middle;
  while (end - first > 1) {
    end--;
    const value = a[end]!;
    a[end] = a[first]!;
    adjustHeap(a, first, 0, end - first, value, less);
  }
}

function introsortLoop<T>(a: T[], first: number, last: number, depthLimit: number, less: Less<T>): void {
  while (last - first > 16) {
    if (depthLimit === 0) {
      heapSelectAndSort(a, first, last, last, less);
      return;
    }
    depthLimit--;
    const mid = first + Math.floor((last - first) / 2);
    moveMedianToFirst(a, first, first + 1, mid, last - 1, less);
    const cut = unguardedPartition(a, first + 1, last, first, less);
    introsortLoop(a, cut, last, depthLimit, less);
    last = cut;
  }
}

/** libstdc++ `std::sort(a.begin(), a.end(), less)`, in place. */
export function stdSort<T>(a: T[], less: Less<T>): T[] {
  const n = a.length;
  if (n < 2) return a;
  introsortLoop(a, 0, n, 2 * Math.floor(Math.log2(n)), less);
  if (n > 16) {
    insertionSort(a, 0, 16, less);
    for (let i = 16; i < n; i++) unguardedLinearInsert(a, i, less);
  } else insertionSort(a, 0, n, less);
  return a;
}

interface RbNode<T> {
  key: T;
  red: boolean;
  left: RbNode<T> | null;
  right: RbNode<T> | null;
  parent: RbNode<T> | null;
}

/**
 * A libstdc++ `std::map` reduced to what the order needs: `insertUnique` as `_M_insert_unique`
 * (descent, the predecessor check, `_Rb_tree_insert_and_rebalance`), and the in-order keys.
 */
export class RbTreeOrder<T> {
  private root: RbNode<T> | null = null;
  private leftmost: RbNode<T> | null = null;
  private rightmost: RbNode<T> | null = null;
  size = 0;

  constructor(private readonly less: Less<T>) {}

  private predecessor(x: RbNode<T>): RbNode<T> {
    if (x.left) {
      let y = x.left;
      while (y.right) y = y.right;
      return y;
    }
    let y = x.parent!;
    while (x === y.left) {
      x = y;
      y = y.parent!;
    }
    return y;
  }

  insertUnique(key: T): boolean {
    let x = this.root;
    let y: RbNode<T> | null = null; // null stands for the header
    let comp = true;
    while (x) {
      y = x;
      comp = this.less(key, x.key);
      x = comp ? x.left : x.right;
    }
    let j: RbNode<T> | null = y;
    if (comp) {
      if (j === this.leftmost || j === null) return this.insertAt(y, key);
      j = this.predecessor(j);
    }
    if (j && this.less(j.key, key)) return this.insertAt(y, key);
    if (!j) return this.insertAt(y, key);
    return false;
  }

  private insertAt(p: RbNode<T> | null, key: T): boolean {
    const insertLeft = p === null || this.less(key, p.key);
    const z: RbNode<T> = { key, red: true, left: null, right: null, parent: p };
    if (p === null) {
      this.root = z;
      this.leftmost = z;
      this.rightmost = z;
    } else if (insertLeft) {
      p.left = z;
      if (p === this.leftmost) this.leftmost = z;
    } else {
      p.right = z;
      if (p === this.rightmost) this.rightmost = z;
    }
    this.rebalance(z);
    this.size++;
    return true;
  }

  private rotateLeft(x: RbNode<T>): void {
    const y = x.right!;
    x.right = y.left;
    if (y.left) y.left.parent = x;
    y.parent = x.parent;
    if (x === this.root) this.root = y;
    else if (x === x.parent!.left) x.parent!.left = y;
    else x.parent!.right = y;
    y.left = x;
    x.parent = y;
  }

  private rotateRight(x: RbNode<T>): void {
    const y = x.left!;
    x.left = y.right;
    if (y.right) y.right.parent = x;
    y.parent = x.parent;
    if (x === this.root) this.root = y;
    else if (x === x.parent!.right) x.parent!.right = y;
    else x.parent!.left = y;
    y.right = x;
    x.parent = y;
  }

  private rebalance(x: RbNode<T>): void {
    while (x !== this.root && x.parent!.red) {
      const xpp = x.parent!.parent!;
      if (x.parent === xpp.left) {
        const y = xpp.right;
        if (y && y.red) {
          x.parent!.red = false;
          y.red = false;
          xpp.red = true;
          x = xpp;
        } else {
          if (x === x.parent!.right) {
            x = x.parent!;
            this.rotateLeft(x);
          }
          x.parent!.red = false;
          xpp.red = true;
          this.rotateRight(xpp);
        }
      } else {
        const y = xpp.left;
        if (y && y.red) {
          x.parent!.red = false;
          y.red = false;
          xpp.red = true;
          x = xpp;
        } else {
          if (x === x.parent!.left) {
            x = x.parent!;
            this.rotateRight(x);
          }
          x.parent!.red = false;
          xpp.red = true;
          this.rotateLeft(xpp);
        }
      }
    }
    this.root!.red = false;
  }

  /** keys in in-order (the map's iteration order) */
  keys(): T[] {
    const out: T[] = [];
    const walk = (n: RbNode<T> | null) => {
      if (!n) return;
      walk(n.left);
      out.push(n.key);
      walk(n.right);
    };
    walk(this.root);
    return out;
  }
}
