"""Quick checks generated from schemas/ by citelint.reports.schema.quick_checks_source: do not edit.

citelint.reports.schema uses them while DIGESTS matches the schema files, and compiles
the checks at run time otherwise (compiling costs a check several milliseconds
of start-up; importing this module, a fraction of one).
"""
import re as _re

from citelint.reports.quickcheck import MISSING, unique_strings as _unique, all_strings as _strings

DIGESTS = {'config.schema.json': 'e85f973c706866b28e18a8ec0d2c464a0a21e4abbe4ff27bef2bac69dde3732d', 'report.schema.json': '5a2f2e785d0313bc258cd5aff5043c5058b36ed20e4c5f2c4fee3be01ca209ff'}

_k_0_4 = frozenset(('cited', 'unavailable', ))
_k_0_7 = _re.compile('^\\S(?:[\\s\\S]*\\S)?(?![\\s\\S])', 32).search
_k_0_10 = _re.compile('^[0-9a-f]{64}$', 32).match
_k_0_14 = _re.compile('^\\S(?:[\\s\\S]*\\S)?(?![\\s\\S])', 32).search

def _f_0_1(v_0_2):
    if not isinstance(v_0_2, dict): return False
    v_0_3 = v_0_2.get('state', MISSING)
    if type(v_0_3) is not str or v_0_3 not in _k_0_4: return False
    t_0_16 = v_0_2.get('state')
    if t_0_16 == 'cited':
        if len(v_0_2) != 5: return False
        v_0_5 = v_0_2.get('state', MISSING)
        if type(v_0_5) is not str or v_0_5 != 'cited': return False
        v_0_6 = v_0_2.get('label', MISSING)
        if not isinstance(v_0_6, str): return False
        if not (1 <= len(v_0_6) <= 200): return False
        if _k_0_7(v_0_6) is None: return False
        v_0_8 = v_0_2.get('source', MISSING)
        if not isinstance(v_0_8, str): return False
        if not (1 <= len(v_0_8) <= 8192): return False
        v_0_9 = v_0_2.get('captureSha256', MISSING)
        if not isinstance(v_0_9, str): return False
        if len(v_0_9) != 64: return False
        if _k_0_10(v_0_9) is None: return False
        v_0_11 = v_0_2.get('snippet', MISSING)
        if not isinstance(v_0_11, str): return False
        if len(v_0_11) < 1: return False
        if not v_0_11 or v_0_11.isspace(): return False
    elif t_0_16 == 'unavailable':
        if len(v_0_2) != 3: return False
        v_0_12 = v_0_2.get('state', MISSING)
        if type(v_0_12) is not str or v_0_12 != 'unavailable': return False
        v_0_13 = v_0_2.get('label', MISSING)
        if not isinstance(v_0_13, str): return False
        if not (1 <= len(v_0_13) <= 200): return False
        if _k_0_14(v_0_13) is None: return False
        v_0_15 = v_0_2.get('reason', MISSING)
        if not isinstance(v_0_15, str): return False
        if len(v_0_15) < 1: return False
        if not v_0_15 or v_0_15.isspace(): return False
    else:
        return False
    return True

_k_1_3 = frozenset(('$schema', 'capture', 'captures', 'evidence', 'exclude', 'facts_pointer', 'labels', 'links', 'markdown', 'quotes', 'reports', 'require_captures_on_base', 'reviews', 'rules', 'sources', ))
_k_1_12 = frozenset(('error', 'notice', 'off', 'warning', ))
_k_1_13 = frozenset(())
_k_1_15 = _re.compile('^CL[0-9]{3}$', 32).match
_k_1_29 = frozenset(('check_at', 'description', 'period', 'unit', ))
_k_1_34 = frozenset(())
_k_1_36 = frozenset(('allow_private_addresses', 'ca_file', 'content_types', 'extractors', 'keep_raw', 'max_bytes', 'proxy', 'sign_key', 'timeout_s', 'user_agent', ))
_k_1_47 = frozenset(('html-text', 'identity', 'pdf-text', 'pypdf', 'trafilatura', ))
_k_1_48 = frozenset(())
_k_1_50 = _re.compile('^[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+$', 32).match
_k_1_54 = frozenset(('allow', 'ignore_query_params', 'images', 'relative', ))
_k_1_57 = frozenset(('error', 'pass', ))
_k_1_61 = _re.compile('^[^&=#]+$', 32).match
_k_1_63 = frozenset(('enabled', 'max_elision_chars', 'min_chars', 'min_segment_chars', ))
_k_1_69 = frozenset(('allowed_signers', 'require_signatures', ))
_k_1_73 = frozenset(('allowed_signers', 'dir', ))
_k_1_77 = _re.compile('^(/([^~]|~[01])*)*$', 32).search

def _f_1_19(v_1_20):
    if not isinstance(v_1_20, list): return False
    if not _strings(v_1_20, 1): return False
    if len(set(v_1_20)) != len(v_1_20): return False
    return True

def _f_1_25(v_1_26):
    if v_1_26 is not None: return False
    return True

def _f_1_27(v_1_28):
    if not isinstance(v_1_28, dict): return False
    if not (v_1_28.keys() <= _k_1_29): return False
    v_1_30 = v_1_28.get('description', MISSING)
    if v_1_30 is not MISSING:
        if not isinstance(v_1_30, str): return False
    v_1_31 = v_1_28.get('unit', MISSING)
    if v_1_31 is not MISSING:
        if not isinstance(v_1_31, str): return False
    v_1_32 = v_1_28.get('period', MISSING)
    if v_1_32 is not MISSING:
        if not isinstance(v_1_32, str): return False
    v_1_33 = v_1_28.get('check_at', MISSING)
    if v_1_33 is not MISSING:
        if not isinstance(v_1_33, str): return False
        if len(v_1_33) < 1: return False
    return True

def _f_1_21(v_1_22):
    if not isinstance(v_1_22, dict): return False
    for k_1_23, v_1_24 in v_1_22.items():
        if k_1_23 in _k_1_34: continue
        if (_f_1_25(v_1_24) + _f_1_27(v_1_24)) != 1: return False
    return True

def _f_1_1(v_1_2):
    if not isinstance(v_1_2, dict): return False
    if not (v_1_2.keys() <= _k_1_3): return False
    v_1_4 = v_1_2.get('$schema', MISSING)
    if v_1_4 is not MISSING:
        if not isinstance(v_1_4, str): return False
    v_1_5 = v_1_2.get('captures', MISSING)
    if v_1_5 is not MISSING:
        if not isinstance(v_1_5, str): return False
        if len(v_1_5) < 1: return False
    v_1_6 = v_1_2.get('reports', MISSING)
    if v_1_6 is not MISSING:
        if not isinstance(v_1_6, list): return False
        if not _strings(v_1_6, 1): return False
    v_1_7 = v_1_2.get('markdown', MISSING)
    if v_1_7 is not MISSING:
        if not isinstance(v_1_7, list): return False
        if not _strings(v_1_7, 1): return False
    v_1_8 = v_1_2.get('exclude', MISSING)
    if v_1_8 is not MISSING:
        if not isinstance(v_1_8, list): return False
        if not _strings(v_1_8, 1): return False
    v_1_9 = v_1_2.get('rules', MISSING)
    if v_1_9 is not MISSING:
        if not isinstance(v_1_9, dict): return False
        for k_1_10, v_1_11 in v_1_9.items():
            if k_1_10 in _k_1_13: continue
            if type(v_1_11) is not str or v_1_11 not in _k_1_12: return False
        for v_1_14 in v_1_9:
            if isinstance(v_1_14, str):
                if _k_1_15(v_1_14) is None: return False
    v_1_16 = v_1_2.get('require_captures_on_base', MISSING)
    if v_1_16 is not MISSING:
        if not isinstance(v_1_16, bool): return False
    v_1_17 = v_1_2.get('sources', MISSING)
    if v_1_17 is not MISSING:
        if not isinstance(v_1_17, list): return False
        if not _strings(v_1_17, 1): return False
        if len(set(v_1_17)) != len(v_1_17): return False
    v_1_18 = v_1_2.get('labels', MISSING)
    if v_1_18 is not MISSING:
        if (_f_1_19(v_1_18) + _f_1_21(v_1_18)) != 1: return False
    v_1_35 = v_1_2.get('capture', MISSING)
    if v_1_35 is not MISSING:
        if not isinstance(v_1_35, dict): return False
        if not (v_1_35.keys() <= _k_1_36): return False
        v_1_37 = v_1_35.get('timeout_s', MISSING)
        if v_1_37 is not MISSING:
            if not isinstance(v_1_37, (int, float)) or isinstance(v_1_37, bool): return False
            if not (v_1_37 <= 3600): return False
            if not (v_1_37 > 0): return False
        v_1_38 = v_1_35.get('max_bytes', MISSING)
        if v_1_38 is not MISSING:
            if not isinstance(v_1_38, int) or isinstance(v_1_38, bool): return False
            if not (v_1_38 >= 1): return False
            if not (v_1_38 <= 67108864): return False
        v_1_39 = v_1_35.get('content_types', MISSING)
        if v_1_39 is not MISSING:
            if not isinstance(v_1_39, list): return False
            if len(v_1_39) < 1: return False
            if not _strings(v_1_39, 1): return False
        v_1_40 = v_1_35.get('allow_private_addresses', MISSING)
        if v_1_40 is not MISSING:
            if not isinstance(v_1_40, bool): return False
        v_1_41 = v_1_35.get('ca_file', MISSING)
        if v_1_41 is not MISSING:
            if not isinstance(v_1_41, str): return False
            if len(v_1_41) < 1: return False
        v_1_42 = v_1_35.get('proxy', MISSING)
        if v_1_42 is not MISSING:
            if not isinstance(v_1_42, str): return False
            if len(v_1_42) < 1: return False
        v_1_43 = v_1_35.get('user_agent', MISSING)
        if v_1_43 is not MISSING:
            if not isinstance(v_1_43, str): return False
            if len(v_1_43) < 1: return False
        v_1_44 = v_1_35.get('extractors', MISSING)
        if v_1_44 is not MISSING:
            if not isinstance(v_1_44, dict): return False
            for k_1_45, v_1_46 in v_1_44.items():
                if k_1_45 in _k_1_48: continue
                if type(v_1_46) is not str or v_1_46 not in _k_1_47: return False
            for v_1_49 in v_1_44:
                if isinstance(v_1_49, str):
                    if _k_1_50(v_1_49) is None: return False
        v_1_51 = v_1_35.get('keep_raw', MISSING)
        if v_1_51 is not MISSING:
            if not isinstance(v_1_51, bool): return False
        v_1_52 = v_1_35.get('sign_key', MISSING)
        if v_1_52 is not MISSING:
            if not isinstance(v_1_52, str): return False
            if len(v_1_52) < 1: return False
    v_1_53 = v_1_2.get('links', MISSING)
    if v_1_53 is not MISSING:
        if not isinstance(v_1_53, dict): return False
        if not (v_1_53.keys() <= _k_1_54): return False
        v_1_55 = v_1_53.get('allow', MISSING)
        if v_1_55 is not MISSING:
            if not isinstance(v_1_55, list): return False
            if not _strings(v_1_55, 1): return False
        v_1_56 = v_1_53.get('relative', MISSING)
        if v_1_56 is not MISSING:
            if type(v_1_56) is not str or v_1_56 not in _k_1_57: return False
        v_1_58 = v_1_53.get('images', MISSING)
        if v_1_58 is not MISSING:
            if not isinstance(v_1_58, bool): return False
        v_1_59 = v_1_53.get('ignore_query_params', MISSING)
        if v_1_59 is not MISSING:
            if not isinstance(v_1_59, list): return False
            if not _unique(v_1_59): return False
            for v_1_60 in v_1_59:
                if not isinstance(v_1_60, str): return False
                if len(v_1_60) < 1: return False
                if _k_1_61(v_1_60) is None: return False
    v_1_62 = v_1_2.get('quotes', MISSING)
    if v_1_62 is not MISSING:
        if not isinstance(v_1_62, dict): return False
        if not (v_1_62.keys() <= _k_1_63): return False
        v_1_64 = v_1_62.get('enabled', MISSING)
        if v_1_64 is not MISSING:
            if not isinstance(v_1_64, bool): return False
        v_1_65 = v_1_62.get('min_chars', MISSING)
        if v_1_65 is not MISSING:
            if not isinstance(v_1_65, int) or isinstance(v_1_65, bool): return False
            if not (v_1_65 >= 1): return False
        v_1_66 = v_1_62.get('min_segment_chars', MISSING)
        if v_1_66 is not MISSING:
            if not isinstance(v_1_66, int) or isinstance(v_1_66, bool): return False
            if not (v_1_66 >= 1): return False
        v_1_67 = v_1_62.get('max_elision_chars', MISSING)
        if v_1_67 is not MISSING:
            if not isinstance(v_1_67, int) or isinstance(v_1_67, bool): return False
            if not (v_1_67 >= 0): return False
    v_1_68 = v_1_2.get('evidence', MISSING)
    if v_1_68 is not MISSING:
        if not isinstance(v_1_68, dict): return False
        if not (v_1_68.keys() <= _k_1_69): return False
        v_1_70 = v_1_68.get('allowed_signers', MISSING)
        if v_1_70 is not MISSING:
            if not isinstance(v_1_70, str): return False
            if len(v_1_70) < 1: return False
        v_1_71 = v_1_68.get('require_signatures', MISSING)
        if v_1_71 is not MISSING:
            if not isinstance(v_1_71, bool): return False
    v_1_72 = v_1_2.get('reviews', MISSING)
    if v_1_72 is not MISSING:
        if not isinstance(v_1_72, dict): return False
        if not (v_1_72.keys() <= _k_1_73): return False
        v_1_74 = v_1_72.get('dir', MISSING)
        if v_1_74 is not MISSING:
            if not isinstance(v_1_74, str): return False
            if len(v_1_74) < 1: return False
        v_1_75 = v_1_72.get('allowed_signers', MISSING)
        if v_1_75 is not MISSING:
            if not isinstance(v_1_75, str): return False
            if len(v_1_75) < 1: return False
    v_1_76 = v_1_2.get('facts_pointer', MISSING)
    if v_1_76 is not MISSING:
        if not isinstance(v_1_76, str): return False
        if _k_1_77(v_1_76) is None: return False
    return True


CHECKS = {
    'report.schema.json#fact': _f_0_1,
    'config.schema.json': _f_1_1,
}
