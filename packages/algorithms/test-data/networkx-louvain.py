"""Best modularity of networkx's louvain_communities (seeds 0..4) on each test-data graph.

Reads every .mtx here as Weft builds it (symmetric files undirected; general files symmetrized; diagonal
entries dropped; duplicate edges merged keeping the smallest weight; pattern files weight 1) and writes
networkx-louvain.json beside this script. Run: python3 networkx-louvain.py (networkx 3.x).
"""

import json
import pathlib

import networkx as nx

HERE = pathlib.Path(__file__).resolve().parent
SEEDS = range(5)


def read_mtx(path):
    lines = path.read_text().splitlines()
    banner = lines[0].split()
    field = banner[3]
    body = [line for line in lines[1:] if line.strip() and not line.startswith("%")]
    n = int(body[0].split()[0])
    g = nx.Graph()
    g.add_nodes_from(range(n))
    for line in body[1:]:
        parts = line.split()
        u, v = int(parts[0]) - 1, int(parts[1]) - 1
        w = 1.0 if field == "pattern" else float(parts[2])
        if u == v:
            continue
        if g.has_edge(u, v):
            w = min(w, g[u][v]["weight"])
        g.add_edge(u, v, weight=w)
    return g


def main():
    result = {"networkx": nx.__version__, "seeds": "SEEDS", "graphs": {}}
    for path in sorted(HERE.glob("*.mtx")):
        g = read_mtx(path)
        best = max(
            nx.community.modularity(g, nx.community.louvain_communities(g, weight="weight", seed=s), weight="weight")
            for s in SEEDS
        )
        result["graphs"][path.name] = {"vertices": g.number_of_nodes(), "edges": g.number_of_edges(), "modularity": best}
    # The seeds on one line, as the repository's JSON formatter writes short arrays.
    text = json.dumps(result, indent=2).replace('"SEEDS"', json.dumps(list(SEEDS)))
    (HERE / "networkx-louvain.json").write_text(text + "\n")


if __name__ == "__main__":
    main()
