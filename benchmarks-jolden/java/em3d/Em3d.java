package em3d;

import jolden.Alloc;
import jolden.Lcg;
import jolden.Options;

/**
 * Em3d: propagation of electromagnetic waves on a bipartite graph. E nodes (electric field) and H
 * nodes (magnetic field) each point to `degree` random nodes of the other kind; every step a
 * node's value drops by the weighted values of the nodes that point to it, first for all E
 * nodes, then for all H nodes. Written here from the algorithm (JOlden's em3d), not from any
 * implementation.
 *
 * Analyzed methods (closed forms in the README): {@link #create(int, int)},
 * {@link #compute(BiGraph, int, int)} (nothing), and {@link Node#makeFromNodes()} (two arrays of
 * `fromCount` cells).
 */
public final class Em3d {
    public static void main(String[] args) {
        int numNodes = Options.intOption(args, "-n", 64);
        int numDegree = Options.intOption(args, "-d", 8);
        int iterations = Options.intOption(args, "-i", 10);
        Lcg.seed(783);
        Alloc.start();
        BiGraph graph = create(numNodes, numDegree);
        Alloc.report("em3d.Em3d.create");
        Alloc.start();
        compute(graph, numNodes, iterations);
        Alloc.report("em3d.Em3d.compute");
        double checksum = 0;
        for (int i = 0; i < numNodes; i++) {
            checksum += graph.eNodes[i].value + graph.hNodes[i].value;
        }
        System.out.println("em3d: nodes " + numNodes + " degree " + numDegree + " checksum "
                + checksum);
    }

    /** The bipartite graph: `numNodes` E and H nodes, each pointing to `numDegree` others. */
    static BiGraph create(int numNodes, int numDegree) {
        BiGraph g = new BiGraph();
        Alloc.object();
        g.eNodes = new Node[numNodes];
        Alloc.array(numNodes);
        g.hNodes = new Node[numNodes];
        Alloc.array(numNodes);
        for (int i = 0; i < numNodes; i++) {
            g.eNodes[i] = newNode(numDegree);
            g.hNodes[i] = newNode(numDegree);
        }
        link(g.eNodes, g.hNodes, numNodes, numDegree);
        link(g.hNodes, g.eNodes, numNodes, numDegree);
        for (int i = 0; i < numNodes; i++) {
            g.eNodes[i].makeFromNodes();
            g.hNodes[i].makeFromNodes();
        }
        fillFrom(g.eNodes, numNodes, numDegree);
        fillFrom(g.hNodes, numNodes, numDegree);
        return g;
    }

    private static Node newNode(int degree) {
        Node n = new Node();
        Alloc.object();
        n.value = Lcg.nextDouble();
        n.toNodes = new Node[degree];
        Alloc.array(degree);
        return n;
    }

    /** Points every node of `from` at `degree` random nodes of `to`. */
    private static void link(Node[] from, Node[] to, int numNodes, int degree) {
        for (int i = 0; i < numNodes; i++) {
            for (int j = 0; j < degree; j++) {
                Node other = to[Lcg.nextInt(numNodes)];
                from[i].toNodes[j] = other;
                other.fromCount++;
            }
        }
    }

    /** Records every node of `nodes` in the from-lists of the nodes it points to. */
    private static void fillFrom(Node[] nodes, int numNodes, int degree) {
        for (int i = 0; i < numNodes; i++) {
            for (int j = 0; j < degree; j++) {
                Node other = nodes[i].toNodes[j];
                other.fromNodes[other.fromLength] = nodes[i];
                // Weights below 1/(4 degree) keep the values from growing without bound.
                other.coeffs[other.fromLength] = Lcg.nextDouble() / (4.0 * degree);
                other.fromLength++;
            }
        }
    }

    /** `iterations` steps of propagation, first over the E nodes, then over the H nodes. */
    static void compute(BiGraph g, int numNodes, int iterations) {
        for (int t = 0; t < iterations; t++) {
            for (int i = 0; i < numNodes; i++) {
                g.eNodes[i].update();
            }
            for (int i = 0; i < numNodes; i++) {
                g.hNodes[i].update();
            }
        }
    }
}

final class BiGraph {
    Node[] eNodes;
    Node[] hNodes;
}

final class Node {
    double value;
    Node[] toNodes;
    Node[] fromNodes;
    double[] coeffs;
    int fromCount;
    int fromLength;

    /** Room for the nodes that point here: two arrays of `fromCount` cells. */
    void makeFromNodes() {
        fromNodes = new Node[fromCount];
        Alloc.array(fromCount);
        coeffs = new double[fromCount];
        Alloc.array(fromCount);
    }

    void update() {
        for (int k = 0; k < fromCount; k++) {
            value -= coeffs[k] * fromNodes[k].value;
        }
    }
}
