//! The loop structure of one method body, for the virtual iteration counters the lowering adds.
//!
//! The block graph here is the one the lowering builds edges for: terminator successors and
//! exception-handler edges. A depth-first search finds the retreating edges (every cycle has
//! one); when each retreating edge's target dominates its source the graph is reducible and the
//! natural loop of each head is known, which lets a counter restart whenever its loop is entered
//! again. This module says nothing about variables or values.

use std::collections::HashSet;

use membound_front::ir::Body;

/// Loop heads, retreating edges and which loops contain each block.
#[derive(Clone, Debug)]
pub struct Loops {
    /// Blocks that are the target of a retreating edge, in increasing order.
    pub heads: Vec<usize>,
    /// `(from, to)` block pairs whose edge is retreating.
    pub retreating: HashSet<(usize, usize)>,
    /// Whether every retreating edge's target dominates its source (natural loops only).
    pub reducible: bool,
    /// Per block, the heads of the natural loops containing it (every head when irreducible).
    pub enclosing: Vec<Vec<usize>>,
}

/// Successor blocks (normal and exceptional) of each block; out-of-range targets are dropped.
pub fn block_successors(body: &Body) -> Vec<Vec<usize>> {
    let count = body.blocks.len();
    body.blocks
        .iter()
        .map(|block| {
            let mut next: Vec<usize> = block
                .terminator
                .successors()
                .iter()
                .map(|b| b.0 as usize)
                .chain(block.handlers.iter().map(|h| h.target.0 as usize))
                .filter(|&b| b < count)
                .collect();
            next.sort_unstable();
            next.dedup();
            next
        })
        .collect()
}

pub fn find_loops(successors: &[Vec<usize>]) -> Loops {
    let (retreating, postorder) = depth_first(successors);
    let mut heads: Vec<usize> = retreating.iter().map(|&(_, to)| to).collect();
    heads.sort_unstable();
    heads.dedup();
    let idom = immediate_dominators(successors, &postorder);
    let reducible = retreating
        .iter()
        .all(|&(from, to)| dominates(&idom, to, from));
    let enclosing = if reducible {
        natural_loop_membership(successors, &retreating, successors.len())
    } else {
        vec![heads.clone(); successors.len()]
    };
    Loops {
        heads,
        retreating,
        reducible,
        enclosing,
    }
}

/// Retreating edges and the postorder of the blocks reachable from block 0 (iterative, so deep
/// bodies cannot overflow the stack).
fn depth_first(successors: &[Vec<usize>]) -> (HashSet<(usize, usize)>, Vec<usize>) {
    let mut retreating = HashSet::new();
    let mut postorder = Vec::new();
    if successors.is_empty() {
        return (retreating, postorder);
    }
    let mut visited = vec![false; successors.len()];
    let mut on_stack = vec![false; successors.len()];
    let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
    visited[0] = true;
    on_stack[0] = true;
    while let Some(&mut (block, ref mut next)) = stack.last_mut() {
        if let Some(&successor) = successors[block].get(*next) {
            *next += 1;
            if on_stack[successor] {
                retreating.insert((block, successor));
            } else if !visited[successor] {
                visited[successor] = true;
                on_stack[successor] = true;
                stack.push((successor, 0));
            }
        } else {
            on_stack[block] = false;
            postorder.push(block);
            stack.pop();
        }
    }
    (retreating, postorder)
}

/// Cooper, Harvey and Kennedy's iterative dominator algorithm over reverse postorder;
/// `None` for unreachable blocks, block 0 is its own dominator.
fn immediate_dominators(successors: &[Vec<usize>], postorder: &[usize]) -> Vec<Option<usize>> {
    let mut order_of = vec![usize::MAX; successors.len()];
    for (index, &block) in postorder.iter().enumerate() {
        order_of[block] = index;
    }
    let mut predecessors = vec![Vec::new(); successors.len()];
    for (block, next) in successors.iter().enumerate() {
        for &successor in next {
            predecessors[successor].push(block);
        }
    }
    let mut idom: Vec<Option<usize>> = vec![None; successors.len()];
    let Some(&entry) = postorder.last() else {
        return idom;
    };
    idom[entry] = Some(entry);
    let mut changed = true;
    while changed {
        changed = false;
        for &block in postorder.iter().rev().filter(|&&b| b != entry) {
            let mut new_idom: Option<usize> = None;
            for &pred in predecessors[block].iter().filter(|&&p| idom[p].is_some()) {
                new_idom = Some(match new_idom {
                    None => pred,
                    Some(current) => intersect(&idom, &order_of, pred, current),
                });
            }
            if new_idom.is_some() && idom[block] != new_idom {
                idom[block] = new_idom;
                changed = true;
            }
        }
    }
    idom
}

fn intersect(idom: &[Option<usize>], order_of: &[usize], a: usize, b: usize) -> usize {
    let (mut a, mut b) = (a, b);
    while a != b {
        while order_of[a] < order_of[b] {
            a = idom[a].unwrap_or(b);
        }
        while order_of[b] < order_of[a] {
            b = idom[b].unwrap_or(a);
        }
    }
    a
}

fn dominates(idom: &[Option<usize>], dominator: usize, block: usize) -> bool {
    let mut current = block;
    loop {
        if current == dominator {
            return true;
        }
        match idom[current] {
            Some(parent) if parent != current => current = parent,
            _ => return false,
        }
    }
}

/// For each block, the heads of the natural loops containing it: a head's loop is the head and
/// every block that reaches a retreating edge's source without passing through the head.
fn natural_loop_membership(
    successors: &[Vec<usize>],
    retreating: &HashSet<(usize, usize)>,
    count: usize,
) -> Vec<Vec<usize>> {
    let mut predecessors = vec![Vec::new(); count];
    for (block, next) in successors.iter().enumerate() {
        for &successor in next {
            predecessors[successor].push(block);
        }
    }
    let mut enclosing = vec![Vec::new(); count];
    let mut heads: Vec<usize> = retreating.iter().map(|&(_, to)| to).collect();
    heads.sort_unstable();
    heads.dedup();
    for head in heads {
        let mut in_loop = vec![false; count];
        in_loop[head] = true;
        let mut work: Vec<usize> = retreating
            .iter()
            .filter(|&&(_, to)| to == head)
            .map(|&(from, _)| from)
            .collect();
        while let Some(block) = work.pop() {
            if !in_loop[block] {
                in_loop[block] = true;
                work.extend(predecessors[block].iter().copied());
            }
        }
        for (block, inside) in in_loop.iter().enumerate() {
            if *inside {
                enclosing[block].push(head);
            }
        }
    }
    enclosing
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_loops_are_natural_and_nested() {
        // 0 -> 1 (outer head) -> 2 (inner head) -> 3 -> 2, 2 -> 4 -> 1, 1 -> 5
        let successors = vec![vec![1], vec![2, 5], vec![3, 4], vec![2], vec![1], vec![]];
        let loops = find_loops(&successors);
        assert!(loops.reducible);
        assert_eq!(loops.heads, vec![1, 2]);
        assert_eq!(loops.enclosing[3], vec![1, 2]);
        assert_eq!(loops.enclosing[4], vec![1]);
        assert!(loops.enclosing[5].is_empty());
    }

    #[test]
    fn a_loop_entered_in_two_places_is_irreducible() {
        // 0 -> 1, 0 -> 2, 1 <-> 2
        let successors = vec![vec![1, 2], vec![2], vec![1]];
        let loops = find_loops(&successors);
        assert!(!loops.reducible);
        assert_eq!(loops.enclosing[0], loops.heads);
    }
}
