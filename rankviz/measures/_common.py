"""Parameters shared by several measure families."""

from rankviz.measures.spec import Param

REL = Param("rel", 1, "minimum grade that counts as relevant (trec_eval -l)", minimum=1)
