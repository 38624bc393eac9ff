package mst;

import jolden.Alloc;
import jolden.Options;

/**
 * MST: Prim's minimum spanning tree of a complete graph whose edge weights come from a hash of the
 * two vertex numbers. Every vertex keeps its edges in a chained hash table of nv/4 + 1 buckets.
 * Written here from the algorithm (JOlden's mst), not from any implementation.
 *
 * Analyzed methods (closed forms in the README): {@link #makeVertices(int)},
 * {@link #addEdges(Graph, int)} (nv(nv-1) entries), {@link #computeMST(Graph, int)} (nv - 1
 * candidates).
 */
public final class MST {
    public static void main(String[] args) {
        int nv = Options.intOption(args, "-v", 64);
        Alloc.start();
        Graph graph = makeVertices(nv);
        Alloc.report("mst.MST.makeVertices");
        Alloc.start();
        addEdges(graph, nv);
        Alloc.report("mst.MST.addEdges");
        Alloc.start();
        int cost = computeMST(graph, nv);
        Alloc.report("mst.MST.computeMST");
        System.out.println("mst: vertices " + nv + " cost " + cost);
    }

    /** The `nv` vertices of the graph, each with an empty table of nv/4 + 1 buckets. */
    static Graph makeVertices(int nv) {
        Graph g = new Graph();
        Alloc.object();
        g.vertices = new Vertex[nv];
        Alloc.array(nv);
        for (int i = 0; i < nv; i++) {
            Vertex v = new Vertex();
            Alloc.object();
            v.number = i;
            v.edges = new HashTable(nv / 4 + 1);
            g.vertices[i] = v;
        }
        return g;
    }

    /** An edge from every vertex to every other one: nv(nv - 1) table entries. */
    static void addEdges(Graph g, int nv) {
        for (int i = 0; i < nv; i++) {
            for (int j = 0; j < nv; j++) {
                if (j != i) {
                    g.vertices[i].edges.put(j, weight(i, j));
                }
            }
        }
    }

    /** A pseudo-random weight in [1, 2048], the same both ways. */
    static int weight(int i, int j) {
        // Not Math.min and Math.max: java.lang.Math's initializer drags much of the JDK into a
        // call graph.
        int lo = i < j ? i : j;
        int hi = i < j ? j : i;
        int h = lo * 0x9E3779B1 ^ hi * 0x85EBCA77;
        h ^= h >>> 15;
        h *= 0x2C1B3C6D;
        h ^= h >>> 12;
        return (h & 2047) + 1;
    }

    /**
     * Prim's algorithm from vertex 0; returns the weight of the tree. Each round finds the
     * vertex outside the tree nearest to it (one {@link Blue} per round) and relaxes the
     * distances of the others through it.
     */
    static int computeMST(Graph g, int nv) {
        if (nv == 0) {
            return 0;
        }
        for (int i = 0; i < nv; i++) {
            g.vertices[i].minDist = Integer.MAX_VALUE;
            g.vertices[i].inTree = false;
        }
        Vertex inserted = g.vertices[0];
        inserted.inTree = true;
        int cost = 0;
        for (int round = 1; round < nv; round++) {
            Blue blue = blueRule(inserted, g, nv);
            cost += blue.dist;
            inserted = blue.vertex;
            inserted.inTree = true;
        }
        return cost;
    }

    /** Relaxes through `inserted` and returns the nearest vertex outside the tree. */
    private static Blue blueRule(Vertex inserted, Graph g, int nv) {
        Blue best = new Blue();
        Alloc.object();
        best.dist = Integer.MAX_VALUE;
        for (int i = 0; i < nv; i++) {
            Vertex v = g.vertices[i];
            if (v.inTree) {
                continue;
            }
            int d = inserted.edges.get(i);
            if (d < v.minDist) {
                v.minDist = d;
            }
            if (v.minDist < best.dist) {
                best.dist = v.minDist;
                best.vertex = v;
            }
        }
        return best;
    }
}

final class Graph {
    Vertex[] vertices;
}

final class Vertex {
    int number;
    HashTable edges;
    int minDist;
    boolean inTree;
}

final class Blue {
    Vertex vertex;
    int dist;
}

/** A chained hash table from vertex numbers to weights. */
final class HashTable {
    private final Entry[] buckets;

    HashTable(int size) {
        buckets = new Entry[size];
        Alloc.object(); // this table
        Alloc.array(size);
    }

    void put(int key, int value) {
        Entry e = new Entry();
        Alloc.object();
        e.key = key;
        e.value = value;
        int b = key % buckets.length;
        e.next = buckets[b];
        buckets[b] = e;
    }

    int get(int key) {
        for (Entry e = buckets[key % buckets.length]; e != null; e = e.next) {
            if (e.key == key) {
                return e.value;
            }
        }
        return Integer.MAX_VALUE;
    }
}

final class Entry {
    int key;
    int value;
    Entry next;
}
