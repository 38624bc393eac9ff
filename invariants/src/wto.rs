//! Weak topological order of a control-flow graph (Bourdoncle 1993): a hierarchical ordering
//! where every cycle passes through the head of a component, so the fixpoint engine can
//! stabilise inner loops before outer ones and widen only at heads.

/// An element of a weak topological order.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum WtoElement {
    Vertex(usize),
    /// A strongly connected part: its head (where widening happens) and the ordered rest.
    Component {
        head: usize,
        body: Vec<WtoElement>,
    },
}

impl WtoElement {
    /// Every node of the element, head first.
    pub fn nodes(&self) -> Vec<usize> {
        match self {
            WtoElement::Vertex(v) => vec![*v],
            WtoElement::Component { head, body } => std::iter::once(*head)
                .chain(body.iter().flat_map(WtoElement::nodes))
                .collect(),
        }
    }
}

/// The weak topological order of the nodes reachable from `entry`.
pub fn weak_topological_order(successors: &[Vec<usize>], entry: usize) -> Vec<WtoElement> {
    let mut builder = Builder {
        successors,
        depth_first_number: vec![0; successors.len()],
        stack: Vec::new(),
        counter: 0,
    };
    let mut order = Vec::new();
    if entry < successors.len() {
        builder.visit(entry, &mut order);
    }
    order.reverse();
    order
}

/// Bourdoncle's recursive construction: a depth-first search that recognises component heads
/// as the vertices whose subtree reaches back to them. Elements are pushed in reverse order.
struct Builder<'a> {
    successors: &'a [Vec<usize>],
    /// 0: not visited; usize::MAX: placed in the order.
    depth_first_number: Vec<usize>,
    stack: Vec<usize>,
    counter: usize,
}

impl Builder<'_> {
    /// Returns the smallest depth-first number reachable from `vertex`'s subtree.
    fn visit(&mut self, vertex: usize, partition: &mut Vec<WtoElement>) -> usize {
        self.stack.push(vertex);
        self.counter += 1;
        self.depth_first_number[vertex] = self.counter;
        let mut head = self.counter;
        let mut is_loop = false;
        for &successor in &self.successors[vertex] {
            let reached = match self.depth_first_number[successor] {
                0 => self.visit(successor, partition),
                number => number,
            };
            if reached <= head {
                head = reached;
                is_loop = true;
            }
        }
        if head == self.depth_first_number[vertex] {
            self.depth_first_number[vertex] = usize::MAX;
            let mut top = self.stack.pop();
            if is_loop {
                while let Some(element) = top.filter(|&e| e != vertex) {
                    self.depth_first_number[element] = 0;
                    top = self.stack.pop();
                }
                partition.push(self.component(vertex));
            } else {
                partition.push(WtoElement::Vertex(vertex));
            }
        }
        head
    }

    fn component(&mut self, head: usize) -> WtoElement {
        let mut body = Vec::new();
        for &successor in &self.successors[head] {
            if self.depth_first_number[successor] == 0 {
                self.visit(successor, &mut body);
            }
        }
        body.reverse();
        WtoElement::Component { head, body }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_loops_give_nested_components() {
        // 0 → 1 → 2 → 3 → 2, 3 → 1, 1 → 4
        let successors = vec![vec![1], vec![2, 4], vec![3], vec![2, 1], vec![]];
        let order = weak_topological_order(&successors, 0);
        let expected = vec![
            WtoElement::Vertex(0),
            WtoElement::Component {
                head: 1,
                body: vec![WtoElement::Component {
                    head: 2,
                    body: vec![WtoElement::Vertex(3)],
                }],
            },
            WtoElement::Vertex(4),
        ];
        assert_eq!(order, expected);
    }

    #[test]
    fn unreachable_nodes_are_left_out() {
        let successors = vec![vec![1], vec![], vec![1]];
        let order = weak_topological_order(&successors, 0);
        assert_eq!(order, vec![WtoElement::Vertex(0), WtoElement::Vertex(1)]);
    }
}
