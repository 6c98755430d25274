# battery_cost_s per catalogue (run from the repository root; prints each catalogue's cost and the dealing it gives):
# from the clean f1bf89c shard runs (each alone on a 2-core machine, empty ccache), restricted to the mutations and
# gates the catalogues hold now. A catalogue's
# cost: its CPU mutations' seconds + its CPU gates' baseline seconds twice (the baseline and the final check) + its
# setup (timed alone) + 4.9 s per CPU gate (the gate binary's build: with a shard's ~30 s of fixed work, the two
# shards' walls at 7b4676d, 1,452 and 1,963 s, give 4.9 s per gate).
import json, collections, glob, os
R='reports/mutations/all/2026-12-05-f1bf89c-cpu-shard%d/outcomes.jsonl'
CAT='mutations/catalogue'
SETUP=dict(pipeline=195,lm=34,tokenizer=32,acoustic_loop=12,vocoder=9,acoustic=5.5,depth=5.5)
BUILD_PER_GATE=4.9
cats={os.path.basename(f)[:-5]:json.load(open(f)) for f in glob.glob(CAT+'/*.json')}
mut_ids={c:{m['id'] for m in j['mutations'] if 'cpu' in m.get('labels',['cpu']) or m.get('label','cpu')=='cpu'} for c,j in cats.items()}
gates_of={c:{(g['name'] if isinstance(g,dict) and 'name' in g else g) for g in (j['gates'] if isinstance(j['gates'],list) else j['gates'].keys())} for c,j in cats.items()}
mut=collections.defaultdict(float); base={}
for s in (0,1):
  for l in open(R%s):
    r=json.loads(l)
    if r['phase']=='mutation' and r['id'] in mut_ids.get(r['component'],()): mut[r['component']]+=r['seconds']
    if r['phase']=='baseline':
      for g in r['gates']: base[g['gate']]=g['process']['seconds']
cost={}
for c in cats:
  gs=[g for g in gates_of[c] if g in base]
  b=sum(base[g] for g in gs)
  cost[c]=round(mut[c]+2*b+SETUP.get(c,0)+BUILD_PER_GATE*len(gs))
  print(f"{c:14s} mut {mut[c]:6.0f} gates {len(gs):3d} base {b:5.0f} -> {cost[c]}")
by=sorted(cost.items(),key=lambda kv:(-kv[1],kv[0])); load=[0,0]; sh=[[],[]]
for c,v in by:
  k=0 if load[0]<=load[1] else 1; load[k]+=v; sh[k].append(c)
print(load, sh)
